//! The client's address behind trusted proxies (`BILLING_TRUSTED_PROXIES`): which peers may
//! say, in `X-Forwarded-For`, whom they forward for.
//!
//! When the socket's peer is not a trusted proxy (and always when none is configured), the
//! client is the peer and `X-Forwarded-For` is ignored: anyone can write the header. When the
//! peer is a trusted proxy, the header's addresses are walked from the right (the one the
//! nearest proxy added first), skipping those that are themselves trusted proxies; the first
//! untrusted address is the client. If every address is trusted, the leftmost is the client
//! (a trusted machine's own request). A malformed entry stops the walk: the client is the
//! last trusted address reached (the peer when it is the rightmost entry, or the header is
//! absent), since nothing left of an entry no trusted proxy could have written is believed.

use std::net::IpAddr;

/// One address or range of `BILLING_TRUSTED_PROXIES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    network: IpAddr,
    prefix: u8,
}

impl Range {
    fn parse(text: &str) -> Result<Self, String> {
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let network: IpAddr = address
            .parse()
            .map_err(|_| format!("'{text}' is not an IP address or CIDR range"))?;
        let bits = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => bits,
            Some(written) => match written.parse::<u8>() {
                // As written: no sign, no leading zero.
                Ok(prefix) if prefix <= bits && prefix.to_string() == written => prefix,
                _ => {
                    return Err(format!(
                        "'{text}': the prefix length must be a number from 0 to {bits}"
                    ));
                }
            },
        };
        // An IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps, as a
        // peer's mapped address is read as its IPv4 one.
        let (network, prefix) = match network {
            IpAddr::V6(address) => match address.to_ipv4_mapped() {
                Some(mapped) if prefix >= 96 => (IpAddr::V4(mapped), prefix - 96),
                Some(_) => {
                    return Err(format!(
                        "'{text}': an IPv4-mapped range (::ffff:a.b.c.d) needs a prefix length of 96 or more"
                    ));
                }
                None => (network, prefix),
            },
            IpAddr::V4(_) => (network, prefix),
        };
        // A range that wide takes in addresses clients reach the service from directly: any
        // of them could then name the address it is counted under (the sign-in throttle).
        // IPv6's private addresses (fc00::/7, unique local) are one range, of any width.
        let unique_local = matches!(network, IpAddr::V6(address) if prefix >= 7 && address.segments()[0] & 0xfe00 == 0xfc00);
        let widest = if network.is_ipv4() { 8 } else { 16 };
        if prefix < widest && !unique_local {
            return Err(format!(
                "'{text}' trusts a /{prefix} of the internet, and any client in it could choose the address its sign-ins are counted under; name the proxies' own addresses or ranges (/{widest} or narrower, or within fc00::/7 for IPv6)"
            ));
        }
        Ok(Self { network, prefix })
    }

    fn contains(&self, address: IpAddr) -> bool {
        match (self.network, canonical(address)) {
            (IpAddr::V4(network), IpAddr::V4(address)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(network) & mask == u32::from(address) & mask
            }
            (IpAddr::V6(network), IpAddr::V6(address)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(network) & mask == u128::from(address) & mask
            }
            _ => false,
        }
    }
}

/// IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`, as a dual-stack socket reports IPv4 peers)
/// compare as the IPv4 address.
fn canonical(address: IpAddr) -> IpAddr {
    address.to_canonical()
}

/// The proxies whose `X-Forwarded-For` is believed; empty (the default) trusts nobody.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    ranges: Vec<Range>,
}

impl TrustedProxies {
    /// Comma-separated IP addresses and CIDR ranges (`10.0.0.0/8, 192.168.1.7, fd00::/8`);
    /// blank: none. The error names the entry that is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let ranges = text
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(Range::parse)
            .collect::<Result<_, _>>()?;
        Ok(Self { ranges })
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// True when `address` is one of the trusted proxies.
    pub fn trusts(&self, address: IpAddr) -> bool {
        self.ranges.iter().any(|range| range.contains(address))
    }

    /// The client's address for a request from `peer` carrying the `X-Forwarded-For` values
    /// `forwarded_for` (every header line, in order), as the module's documentation says.
    pub fn client_address<'a>(
        &self,
        peer: IpAddr,
        forwarded_for: impl IntoIterator<Item = &'a str>,
    ) -> IpAddr {
        if !self.trusts(peer) {
            return canonical(peer);
        }
        let entries: Vec<&str> = forwarded_for
            .into_iter()
            .flat_map(|line| line.split(','))
            .map(str::trim)
            .collect();
        let mut client = canonical(peer);
        for entry in entries.iter().rev() {
            let Some(address) = parse_entry(entry) else {
                return client;
            };
            client = canonical(address);
            if !self.trusts(client) {
                return client;
            }
        }
        client
    }
}

/// An `X-Forwarded-For` entry: an address, or an address with a port (`1.2.3.4:5678`,
/// `[2001:db8::1]:5678`) as some proxies write it.
fn parse_entry(entry: &str) -> Option<IpAddr> {
    entry.parse::<IpAddr>().ok().or_else(|| {
        entry
            .parse::<std::net::SocketAddr>()
            .ok()
            .map(|socket| socket.ip())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("address")
    }

    #[test]
    fn ranges_parse_and_match() {
        let proxies = TrustedProxies::parse(" 10.0.0.0/8, 192.168.1.7 ,fd00::/8,,").expect("valid");
        assert!(proxies.trusts(ip("10.200.3.4")));
        assert!(proxies.trusts(ip("::ffff:10.1.2.3")));
        assert!(proxies.trusts(ip("192.168.1.7")));
        assert!(!proxies.trusts(ip("192.168.1.8")));
        assert!(proxies.trusts(ip("fd12::1")));
        assert!(!proxies.trusts(ip("fe80::1")));
        assert!(!proxies.trusts(ip("11.0.0.1")));
        let widest = TrustedProxies::parse("10.0.0.0/8,fd00::/16").expect("valid");
        assert!(widest.trusts(ip("10.9.8.7")) && widest.trusts(ip("fd00:1::1")));
        insta::assert_snapshot!(TrustedProxies::parse("0.0.0.0/0").unwrap_err(), @"'0.0.0.0/0' trusts a /0 of the internet, and any client in it could choose the address its sign-ins are counted under; name the proxies' own addresses or ranges (/8 or narrower, or within fc00::/7 for IPv6)");
        assert!(
            TrustedProxies::parse("fc00::/7").is_ok(),
            "IPv6's private range"
        );
        // An IPv4-mapped entry is the IPv4 address or range it maps, and as wide.
        let mapped =
            TrustedProxies::parse("::ffff:10.0.0.1, ::ffff:192.168.0.0/112").expect("valid");
        assert!(mapped.trusts(ip("10.0.0.1")) && mapped.trusts(ip("::ffff:10.0.0.1")));
        assert!(!mapped.trusts(ip("10.0.0.2")) && !mapped.trusts(ip("8.8.8.8")));
        assert!(mapped.trusts(ip("192.168.7.7")) && !mapped.trusts(ip("192.169.0.1")));
        for wide in [
            "::ffff:0.0.0.0/96",
            "::ffff:10.0.0.0/95",
            "::ffff:128.0.0.0/97",
        ] {
            assert!(TrustedProxies::parse(wide).is_err(), "{wide}");
        }
        for wide in [
            "::/0",
            "128.0.0.0/1",
            "10.0.0.0/7",
            "2000::/15",
            "fc00::/6",
            "::/7",
        ] {
            assert!(TrustedProxies::parse(wide).is_err(), "{wide}");
        }
        assert!(TrustedProxies::parse("").expect("blank").is_empty());
        for bad in [
            "10.0.0.0/33",
            "10.0.0.0/",
            "10.0.0/8",
            "nginx",
            "fd00::/129",
            "1.2.3.4/+8",
            "1.2.3.4/08",
        ] {
            assert!(TrustedProxies::parse(bad).is_err(), "{bad}");
        }
        insta::assert_snapshot!(TrustedProxies::parse("10.0.0.1, proxy").unwrap_err(), @"'proxy' is not an IP address or CIDR range");
    }

    #[test]
    fn the_client_is_the_first_untrusted_address_from_the_right() {
        let proxies = TrustedProxies::parse("127.0.0.1,10.0.0.0/8").expect("valid");
        let client = |peer: &str, lines: &[&str]| {
            proxies
                .client_address(ip(peer), lines.iter().copied())
                .to_string()
        };
        // An untrusted peer: the header is ignored.
        assert_eq!(client("203.0.113.9", &["198.51.100.1"]), "203.0.113.9");
        // A trusted peer without the header.
        assert_eq!(client("127.0.0.1", &[]), "127.0.0.1");
        // Forged entries left of the real client are not reached.
        assert_eq!(
            client("127.0.0.1", &["1.1.1.1, 198.51.100.1, 10.0.0.3"]),
            "198.51.100.1"
        );
        assert_eq!(
            client("127.0.0.1", &["1.1.1.1", "198.51.100.1:4431"]),
            "198.51.100.1"
        );
        assert_eq!(client("127.0.0.1", &["[2001:db8::7]:80"]), "2001:db8::7");
        // All trusted: the leftmost.
        assert_eq!(client("127.0.0.1", &["10.0.0.4, 10.0.0.3"]), "10.0.0.4");
        // A malformed entry stops the walk at the last trusted address.
        assert_eq!(
            client("127.0.0.1", &["198.51.100.1, garbage, 10.0.0.3"]),
            "10.0.0.3"
        );
        assert_eq!(client("127.0.0.1", &["garbage"]), "127.0.0.1");
        assert_eq!(client("127.0.0.1", &[""]), "127.0.0.1");
        // Nobody trusted: the peer.
        let nobody = TrustedProxies::default();
        assert_eq!(
            nobody
                .client_address(ip("127.0.0.1"), ["198.51.100.1"])
                .to_string(),
            "127.0.0.1"
        );
    }
}
