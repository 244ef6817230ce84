//! The tasks' HTTP/1.1 client: one keep-alive connection, bodies read by `Content-Length`
//! (which the server always sends), JSON read with serde_json.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long a response may take.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(60);

/// An HTTP/1.1 client on one keep-alive connection, for seeding and the checks. It reconnects
/// when the server has closed the connection, and reads bodies by `Content-Length` (which the
/// server always sends).
pub(crate) struct Client {
    address: SocketAddr,
    connection: Option<BufReader<TcpStream>>,
}

/// A response's status and body.
pub(crate) struct Response {
    pub status: u16,
    /// Header names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The first header `name` (lower case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The response itself when its status is `expected`, else an error naming `what`.
    pub(crate) fn expect_status(self, expected: u16, what: &str) -> Result<Self, String> {
        if self.status == expected {
            Ok(self)
        } else {
            Err(format!(
                "{what} answered {} instead of {expected}: {}",
                self.status, self.body
            ))
        }
    }
}

impl Client {
    pub(crate) fn new(address: SocketAddr) -> Self {
        Self {
            address,
            connection: None,
        }
    }

    /// Where the client sends its requests.
    pub(crate) fn address(&self) -> SocketAddr {
        self.address
    }

    /// Sends a request (a body as `application/json`) and reads the response.
    pub(crate) fn send(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> Result<Response, String> {
        self.send_with_type(method, path, token, body, "application/json")
    }

    /// Sends a request with a body of `content_type`; retries once on a fresh connection when
    /// a kept-alive one turns out to be closed before any of the response arrived.
    pub(crate) fn send_with_type(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
        content_type: &str,
    ) -> Result<Response, String> {
        let request = format_request(method, path, token, body, content_type);
        self.send_bytes(method, path, &request)
    }

    /// Sends a request with exactly these headers (besides `Host` and `Content-Length`) and
    /// reads the response; for requests no well-behaved client sends.
    pub(crate) fn send_raw(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> Result<Response, String> {
        let mut request = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        if let Some(body) = body {
            request.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        request.push_str("\r\n");
        request.push_str(body.unwrap_or_default());
        self.send_bytes(method, path, request.as_bytes())
    }

    /// Sends `request`, retrying once on a fresh connection when a kept-alive one turns out to
    /// be closed before any of the response arrived.
    fn send_bytes(&mut self, method: &str, path: &str, request: &[u8]) -> Result<Response, String> {
        let head = method == "HEAD";
        let reused = self.connection.is_some();
        match self.exchange(request, head)? {
            Some(response) => Ok(response),
            None if reused => self
                .exchange(request, head)?
                .ok_or_else(|| format!("{method} {path}: the server closed the connection")),
            None => Err(format!("{method} {path}: the server closed the connection")),
        }
    }

    /// Writes the request and reads the response; `None` when the connection was closed
    /// before the status line.
    fn exchange(&mut self, request: &[u8], head: bool) -> Result<Option<Response>, String> {
        let connection = match &mut self.connection {
            Some(connection) => connection,
            None => {
                let stream = TcpStream::connect(self.address)
                    .map_err(|e| format!("connect {}: {e}", self.address))?;
                stream.set_nodelay(true).map_err(|e| e.to_string())?;
                stream
                    .set_read_timeout(Some(RESPONSE_TIMEOUT))
                    .map_err(|e| e.to_string())?;
                self.connection.insert(BufReader::new(stream))
            }
        };
        if connection.get_mut().write_all(request).is_err() {
            self.connection = None;
            return Ok(None);
        }
        match read_response_to(connection, head) {
            Ok(Some((response, keep_alive))) => {
                if !keep_alive {
                    self.connection = None;
                }
                Ok(Some(response))
            }
            Ok(None) => {
                self.connection = None;
                Ok(None)
            }
            Err(message) => {
                self.connection = None;
                Err(message)
            }
        }
    }
}

/// The bytes of one HTTP/1.1 request.
fn format_request(
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
    content_type: &str,
) -> Vec<u8> {
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!(
            "Content-Type: {content_type}\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body.unwrap_or_default());
    request.into_bytes()
}

/// Reads one response: the status line, the headers and a `Content-Length` body. `None` when
/// the connection ends before the status line; the flag says whether it may be kept alive.
#[cfg(test)]
fn read_response(reader: &mut impl BufRead) -> Result<Option<(Response, bool)>, String> {
    read_response_to(reader, false)
}

/// As `read_response`; the answer to a `HEAD` (`head`) has no body whatever its headers say.
fn read_response_to(
    reader: &mut impl BufRead,
    head: bool,
) -> Result<Option<(Response, bool)>, String> {
    let mut line = String::new();
    let read = reader.read_line(&mut line).map_err(|e| e.to_string());
    if read? == 0 {
        return Ok(None);
    }
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| format!("not an HTTP status line: {line:?}"))?;
    let mut content_length = None;
    let mut keep_alive = true;
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Err("the connection ended inside the headers".to_owned());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(format!("malformed header {header:?}"));
        };
        let value = value.trim();
        headers.push((name.to_ascii_lowercase(), value.to_owned()));
        if name.eq_ignore_ascii_case("content-length") {
            content_length = Some(value.parse::<usize>().map_err(|e| e.to_string())?);
        } else if name.eq_ignore_ascii_case("connection") {
            keep_alive = !value.eq_ignore_ascii_case("close");
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(format!("unexpected Transfer-Encoding: {value}"));
        }
    }
    let length = match (content_length, status) {
        _ if head => 0,
        (Some(length), _) => length,
        (None, 204 | 304) => 0,
        (None, _) => return Err(format!("a {status} response without Content-Length")),
    };
    let mut body = vec![0; length];
    reader.read_exact(&mut body).map_err(|e| e.to_string())?;
    // A compressed answer is not text: kept lossily (only its length is of use).
    let body = String::from_utf8(body)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
    Ok(Some((
        Response {
            status,
            headers,
            body,
        },
        keep_alive,
    )))
}

/// The `id` of a JSON object (or of the first element of an array of them).
pub(crate) fn json_id(json: &str) -> Result<u64, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not JSON ({e}): {json}"))?;
    let record = value
        .as_array()
        .and_then(|items| items.first())
        .unwrap_or(&value);
    record["id"]
        .as_u64()
        .ok_or_else(|| format!("no id in {json}"))
}

/// The string member `name` of a JSON object.
pub(crate) fn json_string_member(json: &str, name: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    value.get(name)?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_content_length_response() {
        let mut wire = &b"HTTP/1.1 201 Created\r\ncontent-length: 9\r\nlocation: /x/1\r\n\r\n{\"id\":17}HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]"[..];
        let (first, keep_alive) = read_response(&mut wire).unwrap().unwrap();
        assert_eq!(
            (first.status, first.body.as_str(), keep_alive),
            (201, "{\"id\":17}", true)
        );
        let (second, keep_alive) = read_response(&mut wire).unwrap().unwrap();
        assert_eq!(
            (second.status, second.body.as_str(), keep_alive),
            (200, "[]", false)
        );
        assert!(read_response(&mut wire).unwrap().is_none());
    }

    #[test]
    fn a_head_answer_has_no_body_whatever_its_length_says() {
        let mut wire =
            &b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nETag: \"1\"\r\n\r\nHTTP/1.1 404 Not Found\r\n\r\n"[..];
        let (first, _) = read_response_to(&mut wire, true).unwrap().unwrap();
        assert_eq!((first.status, first.body.as_str()), (200, ""));
        assert_eq!(first.header("etag"), Some("\"1\""));
        let (second, _) = read_response_to(&mut wire, true).unwrap().unwrap();
        assert_eq!(second.status, 404);
    }

    #[test]
    fn refuses_a_response_without_content_length() {
        let mut wire = &b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"[..];
        assert!(read_response(&mut wire).is_err());
    }

    #[test]
    fn formats_a_request_with_body_and_token() {
        let request = format_request("POST", "/v1/x", Some("t"), Some("{}"), "application/json");
        assert_eq!(
            String::from_utf8(request).unwrap(),
            "POST /v1/x HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\n\
             Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        );
    }

    #[test]
    fn reads_json_members() {
        let json = r#"{"id": 42, "chargeGroupCategoryId":7, "token":"a.b.c"}"#;
        assert_eq!(json_id(json).unwrap(), 42);
        assert_eq!(json_string_member(json, "token").unwrap(), "a.b.c");
        assert!(json_id(r#"{"chargeGroupCategoryId":7}"#).is_err());
    }
}
