//! HTTP/1.1 pipelining made safe under the HTTP library: one request handed over at a time.
//!
//! actix-http 3.20 keeps "the request is a `HEAD`" in its connection's codec, set by the latest
//! request it *read*, and frames an answer by it when the answer's head is *written*. A client
//! that pipelines (sends its next request before the answer to the last) would get the answer
//! to a `GET` without its body, or the answer to a `HEAD` with one, whenever the earlier
//! request's handler had not answered by the time the later one was read: the connection's
//! framing is then broken for the rest of it.
//!
//! So the connection ([`crate::transport::ProblemTransport`]) follows where each request ends
//! ([`RequestFraming`]: the head, then a `Content-Length` body) and holds the bytes that follow
//! a request until the application has answered it. An answer counts once its body is let go
//! ([`AnsweredBody`], put on every answer by [`middleware`], the outermost layer): the library
//! has written its head by then. A request whose framing the connection does not follow (an
//! encoding other than chunked alone, `Upgrade`) ends the holding on that connection, which
//! goes on as before; so does an answer that takes longer than [`LONGEST_HOLD`].
//!
//! A chunked body is followed byte for byte as the library's decoder reads it, for one reason:
//! the library takes a malformed chunk (`zz` for a size) for a broken connection and closes it
//! without an answer. Where a chunked body breaks its framing, the connection hands the library
//! the end of the stream instead ([`RequestFraming::is_malformed`]): it fails the body, the
//! handler answers 400 in plain words, and the connection closes.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use futures_util::task::AtomicWaker;

/// The longest a connection holds a pipelined request for the answer to the one before it;
/// then it stops holding on that connection.
pub const LONGEST_HOLD: Duration = Duration::from_secs(2);

/// The longest request head followed (the HTTP library refuses a longer one with 431).
const LONGEST_HEAD: usize = 160 * 1024;

/// What one connection's reading side and its answers share: how many requests were answered.
#[derive(Debug, Default)]
pub struct ConnectionGate {
    answered: AtomicU64,
    reader: AtomicWaker,
}

impl ConnectionGate {
    /// How many of the connection's requests the application has answered.
    pub fn answered(&self) -> u64 {
        self.answered.load(Ordering::Acquire)
    }

    /// The reading side waits for an answer: `waker` is woken by the next one.
    pub fn wait_for_answer(&self, waker: &Waker) {
        self.reader.register(waker);
    }

    fn note_answered(&self) {
        self.answered.fetch_add(1, Ordering::AcqRel);
        self.reader.wake();
    }
}

/// An answer's body that tells its connection, when let go, that its request was answered.
pub struct AnsweredBody {
    body: BoxBody,
    gate: Option<Arc<ConnectionGate>>,
}

impl MessageBody for AnsweredBody {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}

impl Drop for AnsweredBody {
    fn drop(&mut self) {
        if let Some(gate) = self.gate.take() {
            gate.note_answered();
        }
    }
}

/// Puts [`AnsweredBody`] on every answer so that the connection learns of each (outermost:
/// the library takes this body as it is). An error that reaches the library instead of an
/// answer (none does: `request_context` answers every request) counts as answered at once.
pub async fn middleware(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<AnsweredBody>, actix_web::Error> {
    let gate = request.conn_data::<Arc<ConnectionGate>>().cloned();
    match next.call(request).await {
        Ok(response) => Ok(response
            .map_into_boxed_body()
            .map_body(|_, body| AnsweredBody { body, gate })),
        Err(error) => {
            if let Some(gate) = gate {
                gate.note_answered();
            }
            Err(error)
        }
    }
}

/// Where the requests on a connection end, followed in the bytes as they are read.
#[derive(Debug)]
pub struct RequestFraming {
    state: Framing,
    /// Requests whose head was read whole.
    requests: u64,
}

#[derive(Debug)]
enum Framing {
    /// In a request head (the bytes so far; empty before its first).
    Head(Vec<u8>),
    /// In a request body: this many bytes still to come.
    Body(u64),
    /// In a chunked request body, where the library's chunked decoder would be.
    Chunked(Chunk),
    /// A chunked body broke its framing just here: nothing from here on is handed over.
    Malformed,
    /// Not followed any more on this connection.
    Lost,
}

/// Where a chunked body is, step for step as actix-http 3.20's `ChunkedState` reads it (the
/// size so far carried along), so that a byte is malformed here exactly when the library
/// would fail on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    SizeFirst,
    SizeRest(u64),
    SizeLws(u64),
    Extension(u64),
    SizeLf(u64),
    Data(u64),
    DataCr,
    DataLf,
    EndCr,
    Trailer,
    TrailerLf,
    EndLf,
}

/// What one byte of a chunked body does.
enum ChunkStep {
    Next(Chunk),
    /// The body ended with this byte.
    End,
    Malformed,
}

impl Chunk {
    /// The state after `byte` (`Data` is read past in bulk by [`RequestFraming::advance`]).
    fn step(self, byte: u8) -> ChunkStep {
        use Chunk::*;
        use ChunkStep::{End, Malformed, Next};
        let hex = (byte as char).to_digit(16).map(u64::from);
        match (self, byte) {
            (SizeFirst, _) => hex.map_or(Malformed, |digit| Next(SizeRest(digit))),
            (SizeRest(size), _) if hex.is_some() => size
                .checked_mul(16)
                .zip(hex)
                .map_or(Malformed, |(size, digit)| Next(SizeRest(size + digit))),
            (SizeRest(size) | SizeLws(size), b'\t' | b' ') => Next(SizeLws(size)),
            (SizeRest(size) | SizeLws(size), b';') => Next(Extension(size)),
            (SizeRest(size) | SizeLws(size) | Extension(size), b'\r') => Next(SizeLf(size)),
            (Extension(_), 0x00..=0x08 | 0x0a..=0x1f | 0x7f) => Malformed,
            (Extension(size), _) => Next(Extension(size)),
            (SizeLf(0), b'\n') => Next(EndCr),
            (SizeLf(size), b'\n') => Next(Data(size)),
            (Data(left), _) => Next(if left <= 1 { DataCr } else { Data(left - 1) }),
            (DataCr, b'\r') => Next(DataLf),
            (DataLf, b'\n') => Next(SizeFirst),
            (EndCr, b'\r') => Next(EndLf),
            (Trailer, b'\r') => Next(TrailerLf),
            (EndCr | Trailer, _) => Next(Trailer),
            (TrailerLf, b'\n') => Next(EndCr),
            (EndLf, b'\n') => End,
            _ => Malformed,
        }
    }
}

impl Default for RequestFraming {
    fn default() -> Self {
        Self {
            state: Framing::Head(Vec::new()),
            requests: 0,
        }
    }
}

impl RequestFraming {
    /// Whether the next byte starts a request while the one before it is still unanswered
    /// (`answered` requests were): that byte is held.
    pub fn must_hold(&self, answered: u64) -> bool {
        matches!(&self.state, Framing::Head(head) if head.is_empty()) && answered < self.requests
    }

    /// Whether a chunked body broke its framing: the bytes from there on are not handed over.
    pub fn is_malformed(&self) -> bool {
        matches!(self.state, Framing::Malformed)
    }

    /// Stops following this connection (it goes on unheld).
    pub fn give_up(&mut self) {
        self.state = Framing::Lost;
    }

    /// Follows `bytes`, read after those before: how many of them may be handed over now.
    /// That is all of them, or the ones up to the end of a request when others follow it
    /// (those wait until [`must_hold`](Self::must_hold) says no).
    pub fn advance(&mut self, bytes: &[u8]) -> usize {
        let mut taken = 0;
        while taken < bytes.len() {
            let rest = &bytes[taken..];
            match &mut self.state {
                Framing::Lost => return bytes.len(),
                Framing::Malformed => return taken,
                Framing::Chunked(Chunk::Data(left)) => {
                    taken += read_past(left, rest);
                    if *left == 0 {
                        self.state = Framing::Chunked(Chunk::DataCr);
                    }
                }
                Framing::Chunked(chunk) => match chunk.step(rest[0]) {
                    ChunkStep::Next(next) => {
                        *chunk = next;
                        taken += 1;
                    }
                    // The request ends: what follows it waits for its answer, as after any.
                    ChunkStep::End => {
                        self.state = Framing::Head(Vec::new());
                        return taken + 1;
                    }
                    ChunkStep::Malformed => {
                        self.state = Framing::Malformed;
                        return taken;
                    }
                },
                Framing::Body(left) => {
                    taken += read_past(left, rest);
                    if *left == 0 {
                        self.state = Framing::Head(Vec::new());
                        return taken;
                    }
                }
                // Empty lines before a request line are read past, as the library does.
                Framing::Head(head) if head.is_empty() && matches!(rest[0], b'\r' | b'\n') => {
                    taken += 1;
                }
                Framing::Head(head) => {
                    // A head read whole in one piece (the usual case) is looked at where it is.
                    let found = if head.is_empty() {
                        head_end(rest, 0).map(|end| (end, &rest[..end]))
                    } else {
                        let (searched_from, before) = (head.len().saturating_sub(2), head.len());
                        head.extend_from_slice(rest);
                        head_end(head, searched_from).map(|end| (end - before, &head[..end]))
                    };
                    let Some((end, complete)) = found else {
                        if head.is_empty() {
                            head.extend_from_slice(rest);
                        }
                        if head.len() > LONGEST_HEAD {
                            self.state = Framing::Lost;
                        }
                        return bytes.len();
                    };
                    let body = body_framing(complete);
                    taken += end;
                    self.requests += 1;
                    self.state = match body {
                        BodyFraming::Length(0) => Framing::Head(Vec::new()),
                        BodyFraming::Length(length) => Framing::Body(length),
                        BodyFraming::Chunked => Framing::Chunked(Chunk::SizeFirst),
                        BodyFraming::Unfollowed => Framing::Lost,
                    };
                    if matches!(self.state, Framing::Head(_)) {
                        return taken;
                    }
                }
            }
        }
        taken
    }
}

/// Reads past as much of `rest` as the `left` bytes still to come take: how many.
fn read_past(left: &mut u64, rest: &[u8]) -> usize {
    let part = usize::try_from(*left).map_or(rest.len(), |left| left.min(rest.len()));
    *left -= part as u64;
    part
}

/// The end of a request head (just past its empty line) in `head`, looking from `from`:
/// lines end in CRLF or, as the library also reads them, in a bare LF.
fn head_end(head: &[u8], from: usize) -> Option<usize> {
    memchr::memchr_iter(b'\n', &head[from..]).find_map(|at| match &head[from + at + 1..] {
        [b'\n', ..] => Some(from + at + 2),
        [b'\r', b'\n', ..] => Some(from + at + 3),
        _ => None,
    })
}

/// How a request head says its body ends.
#[derive(Debug, PartialEq, Eq)]
enum BodyFraming {
    /// `Content-Length` (none: 0).
    Length(u64),
    /// `Transfer-Encoding: chunked`, alone, on HTTP/1.1: the library decodes it chunked.
    Chunked,
    /// A head the connection does not follow: otherwise encoded, an upgrade, more than one
    /// `Content-Length` or `Transfer-Encoding`, both, or a length that is not plain digits. A
    /// head the library cannot read (a folded or malformed header) is refused by it, and the
    /// connection closed.
    Unfollowed,
}

/// How the body of the request whose head is `head` ends.
fn body_framing(head: &[u8]) -> BodyFraming {
    let (mut length, mut chunked) = (None, false);
    let mut lines = memchr::memchr_iter(b'\n', head);
    let Some(request_line_end) = lines.next() else {
        return BodyFraming::Unfollowed;
    };
    let http_1_1 = head[..request_line_end]
        .trim_ascii_end()
        .ends_with(b" HTTP/1.1");
    let mut start = request_line_end + 1;
    for end in lines {
        let line = &head[start..end];
        start = end + 1;
        let Some((name, value)) = header(line) else {
            continue;
        };
        let value = value.trim_ascii();
        if name.eq_ignore_ascii_case(b"upgrade") {
            return BodyFraming::Unfollowed;
        }
        if name.eq_ignore_ascii_case(b"transfer-encoding") {
            if chunked || !value.eq_ignore_ascii_case(b"chunked") {
                return BodyFraming::Unfollowed;
            }
            chunked = true;
        }
        if name.eq_ignore_ascii_case(b"content-length") {
            if length.is_some()
                || value.is_empty()
                || value.len() > 18
                || !value.iter().all(u8::is_ascii_digit)
            {
                return BodyFraming::Unfollowed;
            }
            match std::str::from_utf8(value)
                .ok()
                .and_then(|digits| digits.parse::<u64>().ok())
            {
                Some(announced) => length = Some(announced),
                None => return BodyFraming::Unfollowed,
            }
        }
    }
    match (chunked, length) {
        (true, None) if http_1_1 => BodyFraming::Chunked,
        (true, _) => BodyFraming::Unfollowed,
        (false, length) => BodyFraming::Length(length.unwrap_or(0)),
    }
}

/// A header line's name and value when its name is one [`body_length`] looks at (cheaply:
/// most lines are passed over by their first letter).
fn header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let name_length = match line.first()?.to_ascii_lowercase() {
        b'c' => 14,
        b't' => 17,
        b'u' => 7,
        _ => return None,
    };
    match line.get(name_length) {
        Some(b':') => Some((&line[..name_length], &line[name_length + 1..])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `stream` in reads of `piece` bytes, answering each request once the framing
    /// holds what follows it: the stretches handed over, and how many requests were seen.
    fn handed(stream: &[u8], piece: usize) -> (Vec<std::ops::Range<usize>>, u64) {
        let mut framing = RequestFraming::default();
        let (mut answered, mut handed, mut from) = (0, Vec::new(), 0);
        for read in stream.chunks(piece) {
            let mut rest = read;
            while !rest.is_empty() {
                if framing.must_hold(answered) {
                    answered += 1;
                }
                let take = framing.advance(rest);
                handed.push(from..from + take);
                (from, rest) = (from + take, &rest[take..]);
            }
        }
        (handed, framing.requests)
    }

    #[test]
    fn pipelined_requests_are_handed_over_one_at_a_time_whatever_the_reads() {
        let requests = [
            "GET /v1/a HTTP/1.1\r\nhost: x\r\n\r\n",
            "POST /v1/a HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
            "\r\nHEAD /v1/a HTTP/1.1\nhost: x\n\n",
            "GET /v1/b HTTP/1.1\r\n\r\n",
        ];
        let stream = requests.concat();
        let ends: Vec<usize> = requests
            .iter()
            .scan(0, |end, request| {
                *end += request.len();
                Some(*end)
            })
            .collect();
        for piece in [1, 2, 3, 7, 64, stream.len()] {
            let (handed, seen) = handed(stream.as_bytes(), piece);
            assert_eq!(seen, 4, "piece {piece}");
            assert_eq!(handed.last().map(|last| last.end), Some(stream.len()));
            for stretch in &handed {
                assert!(
                    !ends
                        .iter()
                        .any(|end| stretch.start < *end && *end < stretch.end),
                    "reads of {piece}: {stretch:?} runs past the end of a request ({ends:?})"
                );
            }
        }
    }

    #[test]
    fn a_request_after_an_unanswered_one_waits() {
        let mut framing = RequestFraming::default();
        let bytes = b"GET / HTTP/1.1\r\n\r\nHEAD / HTTP/1.1\r\n\r\n";
        assert_eq!(framing.advance(bytes), 18);
        assert!(framing.must_hold(0), "the HEAD waits for the GET's answer");
        assert!(!framing.must_hold(1));
        assert_eq!(framing.advance(&bytes[18..]), 19);
        assert!(framing.must_hold(1));
        // A request that comes after its predecessor was answered is never held.
        assert!(!framing.must_hold(2));
    }

    /// A chunked body is followed as the library reads it, in reads of any size: to its end
    /// (the request after it waits for its answer, as after any), or to the byte the library
    /// would fail on.
    #[test]
    fn a_chunked_body_is_followed_to_its_end_or_its_first_malformed_byte() {
        let head = "POST / HTTP/1.1\r\nHost: x\r\ntransfer-encoding:  Chunked \r\n\r\n";
        let well_formed = [
            "2\r\n{}\r\n0\r\n\r\n",
            "A;name=value\r\n0123456789\r\n1 \t;x\r\n}\r\n0\r\nExpires: never\r\nX: y\r\n\r\n",
            "0000000000000002\r\n{}\r\n0\r\n\r\n",
        ];
        for body in well_formed {
            let end = head.len() + body.len();
            let stream = format!("{head}{body}GET / HTTP/1.1\r\n\r\n");
            for piece in [1, 2, 5, stream.len()] {
                let (handed, seen) = handed(stream.as_bytes(), piece);
                assert_eq!(seen, 2, "{body:?} in pieces of {piece}");
                assert_eq!(handed.last().map(|last| last.end), Some(stream.len()));
                assert!(
                    !handed.iter().any(|s| s.start < end && end < s.end),
                    "{body:?} in pieces of {piece}: the GET was handed with the POST"
                );
            }
            let mut framing = RequestFraming::default();
            assert_eq!(framing.advance(stream.as_bytes()), end, "{body:?}");
            assert!(framing.must_hold(0), "the GET waits for the POST's answer");
        }
        // Each refused where actix-http's decoder refuses it ("Invalid chunk size line", …).
        for (body, good) in [
            ("zz\r\n{}\r\n0\r\n\r\n", 0),
            ("-5\r\nxxxxx\r\n", 0),
            ("2\r\n{}\r\n-5\r\nxxxxx\r\n0\r\n\r\n", 7),
            ("ffffffffffffffffffff\r\n", 16),
            ("2\r\n{}x\r\n", 5),
            ("2 x\r\n", 2),
            ("2;\x01\r\n", 2),
            ("2\n{}\r\n", 1),
            ("0\r\n\r\x00", 4),
        ] {
            for piece in [1, 3, body.len() + head.len()] {
                let stream = format!("{head}{body}");
                let mut framing = RequestFraming::default();
                let mut handed = 0;
                for read in stream.as_bytes().chunks(piece) {
                    handed += framing.advance(read);
                    if framing.is_malformed() {
                        break;
                    }
                }
                assert!(framing.is_malformed(), "{body:?} in pieces of {piece}");
                assert_eq!(handed, head.len() + good, "{body:?} in pieces of {piece}");
            }
        }
        // Not chunked for the library: not followed as such.
        for head in [
            "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        ] {
            let mut framing = RequestFraming::default();
            let stream = format!("{head}zz");
            assert_eq!(framing.advance(stream.as_bytes()), stream.len(), "{head:?}");
            assert!(!framing.is_malformed(), "{head:?}");
        }
    }

    #[test]
    fn what_the_connection_does_not_follow_is_never_held() {
        for head in [
            "GET / HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: +2\r\n\r\n",
            "POST / HTTP/1.1\r\ncontent-length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
        ] {
            let mut framing = RequestFraming::default();
            let stream = format!("{head}ab GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n");
            assert_eq!(framing.advance(stream.as_bytes()), stream.len(), "{head:?}");
            assert!(!framing.must_hold(0), "{head:?}");
        }
        // A head longer than the library reads is not followed either.
        let mut framing = RequestFraming::default();
        let long = format!("GET / HTTP/1.1\r\nX-Long: {}", "a".repeat(LONGEST_HEAD));
        framing.advance(long.as_bytes());
        assert_eq!(framing.advance(b"\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 22);
        assert!(!framing.must_hold(0));
    }

    #[test]
    fn a_body_of_the_announced_length_is_read_past_in_any_pieces() {
        let mut framing = RequestFraming::default();
        assert_eq!(
            framing.advance(b"PUT / HTTP/1.1\r\ncontent-length: 5\r\n\r\nab"),
            39
        );
        assert!(!framing.must_hold(0), "still in the body");
        assert_eq!(
            framing.advance(b"cdeGET"),
            3,
            "the body ends, the next request waits"
        );
        assert!(framing.must_hold(0));
    }
}
