//! The connection under the HTTP library: what it says itself is problem+json too.
//!
//! actix-http answers a request head it cannot read before any route or middleware runs, with
//! an empty body: 431 for a head over 128 KiB or of more than 96 headers, 400 for a malformed
//! line or a request target over 64 KiB (`http::Uri`'s limit), 408 for a head that takes more
//! than 5 s to arrive. [`ProblemTransport`] wraps each
//! connection and, when such an answer is written (a 400, 408 or 431 with `content-length: 0`, which
//! the service's own answers never are: they all carry a problem+json body), writes a
//! problem+json answer of the same kind in its place, then the connection closes as before. A
//! 400 that follows a line longer than the service's own limit on request targets
//! ([`MAX_URI_BYTES`]) is a request target too long: 414, as the middleware answers a
//! shorter one. The API is served through [`serve_api`], which builds what actix-web's
//! `HttpServer` builds, with this transport under it.
//!
//! The connection also hands the library one request at a time when a client pipelines
//! ([`crate::pipelining`]). Everything else passes through untouched; the only work per
//! request is measuring its request line and finding where it ends as it is read.

use std::future::Future;
use std::io;
use std::net::{SocketAddr, TcpListener};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_service::{IntoServiceFactory, ServiceFactoryExt, fn_service, map_config};
use actix_web::dev::AppConfig;
use actix_web::rt::net::TcpStream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::MetricsOn;
use crate::pipelining::{ConnectionGate, LONGEST_HOLD, RequestFraming};
use crate::request_context::{MAX_HEADER_BYTES, MAX_URI_BYTES};
use crate::state::AppState;

/// How the API is served: what `HttpServer` would set, spelled out.
#[derive(Debug, Clone, Copy)]
pub struct ServeOptions {
    pub workers: usize,
    /// Blocking threads per worker (each holds a database connection while it works).
    pub blocking_threads: usize,
    /// How long a graceful stop waits for requests in flight.
    pub shutdown_timeout_seconds: u64,
    /// The most connections the instance holds at once ([`DEFAULT_MAX_CONNECTIONS`]).
    pub max_connections: u32,
}

/// 1,024 connections: each may hold up to about 300 KB of a request body the HTTP library has
/// read ahead before the body's turn in the budget comes (measured), so the instance holds at
/// most some 300 MB that way; with actix's own default (25,600 a worker) it was gigabytes. A
/// connection past it waits in the kernel's queue until another closes.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 1024;

/// What each connection's socket may hold of answers not yet taken by the client (the kernel
/// doubles it). A write is accepted again only once about half of what the socket holds has
/// gone, and the connection gives up on a client from which no write is accepted for the body
/// timeout: with the kernel's own sizing (up to 4 MiB), a client reading a large answer
/// steadily at 38 KB/s went 55 s between accepted writes and was cut off. With this, a client
/// taking at least 256 KiB every 30 s keeps its connection; it costs a connection at most
/// 10 MB/s on a link of 50 ms round trips.
pub const SEND_BUFFER_BYTES: usize = 256 * 1024;

/// Sets up an accepted connection's socket: no delay for small writes, and
/// [`SEND_BUFFER_BYTES`].
fn prepare(stream: &TcpStream) {
    let _ = stream.set_nodelay(true);
    let _ = socket2::SockRef::from(stream).set_send_buffer_size(SEND_BUFFER_BYTES);
}

/// The API on `listener`, HTTP/1.1 over [`ProblemTransport`] connections: as actix-web's
/// `HttpServer` serves it (keep-alive 5 s, a request head within 5 s, idle keep-alive
/// connections closed at once when stopping), but with the HTTP library's own refusals in
/// problem+json, and SIGINT (Ctrl-C) stopping as gracefully as SIGTERM
/// (`stop_on_signals`). Call it inside an actix system.
pub fn serve_api(
    listener: TcpListener,
    options: ServeOptions,
    state: actix_web::web::Data<AppState>,
    metrics_on: MetricsOn,
) -> io::Result<actix_server::Server> {
    let address: SocketAddr = listener.local_addr()?;
    let builder = actix_server::Server::build();
    let stopping = builder.graceful_shutdown_signal();
    let server = builder
        .disable_signals()
        .workers(options.workers)
        .max_concurrent_connections(
            (options.max_connections as usize).div_ceil(options.workers.max(1)),
        )
        .worker_max_blocking_threads(options.blocking_threads)
        .shutdown_timeout(options.shutdown_timeout_seconds)
        .listen("billing-api", listener, move || {
            let stopping = stopping.clone();
            let largest_body = state
                .limits
                .body_bytes
                .max(crate::routes::rating_lookups::BODY_LIMIT_BYTES);
            let application = crate::application(state.clone(), metrics_on)
                .into_factory()
                .map_err(|error| error.error_response());
            let http = actix_http::HttpService::build()
                .graceful_shutdown_signal(move || {
                    let stopping = stopping.clone();
                    async move { stopping.notified().await }
                })
                .keep_alive(actix_http::KeepAlive::default())
                .client_request_timeout(Duration::from_secs(5))
                .client_disconnect_timeout(Duration::from_secs(1))
                .local_addr(address)
                // Each request's answer is counted on its connection (`pipelining`).
                .on_connect_ext(|connection: &ProblemTransport<TcpStream>, data| {
                    data.insert(connection.gate.clone());
                })
                .expect(fn_service({
                    let state = state.clone();
                    move |request: actix_http::Request| {
                        let refused = refuse_what_no_route_takes(request, largest_body, &state);
                        async move { refused }
                    }
                }))
                // The application reads no host from its config: requests carry their own.
                .h1(map_config(application, |()| AppConfig::default()));
            // A client that reads nothing of an answer for as long as a body may take to
            // arrive is given up on.
            let stall_limit = state.limits.body_timeout;
            fn_service(move |stream: TcpStream| async move {
                let peer = stream.peer_addr().ok();
                prepare(&stream);
                Ok((ProblemTransport::new(stream, stall_limit), peer))
            })
            .and_then(http)
        })?
        .run();
    actix_web::rt::spawn(stop_on_signals(server.handle()));
    Ok(server)
}

/// A request that asks `Expect: 100-continue` before sending a body larger than any route
/// takes (`largest` bytes: the rating lookup's limit or the general one, whichever is larger)
/// is answered 413 at once, instead of being told to send it only to be refused part way.
/// A body a route's own smaller limit refuses is refused by the route, after `100 Continue`.
fn refuse_what_no_route_takes(
    request: actix_http::Request,
    largest: usize,
    state: &AppState,
) -> Result<actix_http::Request, actix_http::Response<actix_http::body::BoxBody>> {
    use actix_http::HttpMessage;
    let declared = request
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    match declared {
        Some(length) if length > largest as u64 => {
            let refused = crate::request_context::refused_before_the_app(
                state,
                request.method(),
                request.path(),
                &crate::error::ApiError::payload_too_large(largest),
            );
            let mut refused: actix_http::Response<_> = refused.into();
            refused.headers_mut().insert(
                actix_web::http::header::CONNECTION,
                actix_web::http::header::HeaderValue::from_static("close"),
            );
            Err(refused)
        }
        _ => Ok(request),
    }
}

/// SIGTERM, SIGINT (Ctrl-C) or SIGHUP (the terminal closed) stops the server gracefully: no
/// new connections, requests in flight finish (up to the shutdown timeout). A second SIGINT
/// while it stops ends the process at once, dropping what is in flight (actix's own handling
/// would force on the first SIGINT; a SIGHUP would kill the process with no word).
async fn stop_on_signals(server: actix_server::ServerHandle) {
    use futures_util::future::{Either, select, select_all};
    use tokio::signal::unix::{SignalKind, signal};
    let (mut interrupt, mut terminate, mut hangup) = match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) {
        (Ok(interrupt), Ok(terminate), Ok(hangup)) => (interrupt, terminate, hangup),
        (Err(error), _, _) | (_, Err(error), _) | (_, _, Err(error)) => {
            tracing::warn!(%error, "cannot listen for SIGINT, SIGTERM and SIGHUP");
            return;
        }
    };
    let which = {
        type Received<'a> = Pin<Box<dyn Future<Output = &'static str> + 'a>>;
        let signals: [Received<'_>; 3] = [
            Box::pin(async { interrupt.recv().await.map_or("SIGINT", |()| "SIGINT") }),
            Box::pin(async { terminate.recv().await.map_or("SIGTERM", |()| "SIGTERM") }),
            Box::pin(async { hangup.recv().await.map_or("SIGHUP", |()| "SIGHUP") }),
        ];
        select_all(signals).await.0
    };
    tracing::info!(
        signal = which,
        "stopping gracefully: requests in flight finish (SIGINT again to stop at once)"
    );
    let stopping = server.stop(true);
    if let Either::Right(_) = select(Box::pin(stopping), Box::pin(interrupt.recv())).await {
        tracing::warn!("SIGINT again: stopping at once, dropping the requests in flight");
        std::process::exit(130);
    }
}

/// A connection whose bare parse-error answers become problem+json, which gives up on a
/// client that reads nothing of an answer for `stall_limit` (the connection closes, and the
/// answer, a list page's share of the list budget with it, is let go), and which holds a
/// pipelined request until the one before it is answered.
pub struct ProblemTransport<T> {
    io: T,
    stall_limit: Duration,
    /// Running while the client takes none of what is written.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The rest of a replacement answer still to be written.
    pending: Vec<u8>,
    /// The length of the request line being read (the first line after the last answer).
    request_line: usize,
    /// Still reading that line (no `\n` seen since the last answer).
    in_request_line: bool,
    /// Where the requests read end, so that a pipelined one waits for the answer before it.
    framing: RequestFraming,
    /// How many requests were answered (the application's side counts them).
    gate: Arc<ConnectionGate>,
    /// Bytes read past the end of a request still unanswered.
    held: Vec<u8>,
    /// Running while a pipelined request is held.
    holding: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> ProblemTransport<T> {
    pub fn new(io: T, stall_limit: Duration) -> Self {
        Self {
            io,
            stall_limit,
            stalled: None,
            pending: Vec::new(),
            request_line: 0,
            in_request_line: true,
            framing: RequestFraming::default(),
            gate: Arc::default(),
            held: Vec::new(),
            holding: None,
        }
    }

    /// `Pending` while the request that the next bytes start must wait for the answer to
    /// the one before it (at most [`LONGEST_HOLD`], then this connection is no longer held).
    fn poll_hold(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if !self.framing.must_hold(self.gate.answered()) {
            self.holding = None;
            return Poll::Ready(());
        }
        self.gate.wait_for_answer(cx.waker());
        if !self.framing.must_hold(self.gate.answered()) {
            self.holding = None;
            return Poll::Ready(());
        }
        let timer = self
            .holding
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(LONGEST_HOLD)));
        if timer.as_mut().poll(cx).is_ready() {
            self.holding = None;
            self.framing.give_up();
            return Poll::Ready(());
        }
        Poll::Pending
    }

    /// Measures the request line in what was read; the rest of a request (headers, body) is
    /// not looked at.
    fn note_read(&mut self, bytes: &[u8]) {
        if !self.in_request_line {
            return;
        }
        match bytes.iter().position(|byte| *byte == b'\n') {
            Some(end) => {
                self.request_line += end;
                self.in_request_line = false;
            }
            None => self.request_line += bytes.len(),
        }
    }

    /// An answer is being written: what is read next starts a new request.
    fn note_answer(&mut self) {
        self.request_line = 0;
        self.in_request_line = true;
    }
}

/// The problem+json answer to write instead of `head`, when `head` is the HTTP library's bare
/// answer to a request it could not read.
fn replacement(head: &[u8], request_line: usize) -> Option<Vec<u8>> {
    let end = head.windows(4).position(|window| window == b"\r\n\r\n")?;
    let text = std::str::from_utf8(&head[..end]).ok()?;
    let status = text.strip_prefix("HTTP/1.1 ")?.get(..3)?;
    let bare = text
        .lines()
        .any(|line| line.eq_ignore_ascii_case("content-length: 0"));
    if !bare || head.len() != end + 4 {
        return None;
    }
    let (status, title, detail) = match status {
        "431" => (
            431,
            "Request Header Fields Too Large",
            format!(
                "the request head is larger than 128 KiB or has more than 96 headers; the service reads at most {MAX_HEADER_BYTES} bytes of headers"
            ),
        ),
        "400" if request_line > MAX_URI_BYTES => (
            414,
            "URI Too Long",
            format!(
                "the request target (path and query string) is longer than {MAX_URI_BYTES} bytes"
            ),
        ),
        "408" => (
            408,
            "Request Timeout",
            "the request head did not arrive within 5 seconds".to_owned(),
        ),
        "400" => (
            400,
            "Bad Request",
            "the request could not be read as HTTP/1.1: its request line or a header is malformed"
                .to_owned(),
        ),
        _ => return None,
    };
    let request_id = uuid::Uuid::new_v4().to_string();
    let body = serde_json::json!({
        "type": "about:blank",
        "title": title,
        "status": status,
        "detail": detail,
        "instance": "",
        "requestId": request_id,
        "error": title,
        "message": detail,
    })
    .to_string();
    let mut answer = format!(
        "HTTP/1.1 {status} {title}\r\ncontent-type: application/problem+json\r\ncontent-length: {}\r\nconnection: close\r\nx-request-id: {request_id}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(body.as_bytes());
    Some(answer)
}

impl<T: AsyncRead + Unpin> AsyncRead for ProblemTransport<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.poll_hold(cx).is_pending() {
            return Poll::Pending;
        }
        if this.framing.is_malformed() {
            // The end of the stream, for the library, where a chunked body broke its framing
            // (`pipelining`): the request in hand is answered 400, then the connection closes.
            this.held.clear();
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        if !this.held.is_empty() {
            let given = this.held.len().min(buf.remaining());
            let taken = this.framing.advance(&this.held[..given]);
            buf.put_slice(&this.held[..taken]);
            this.held.drain(..taken);
        } else {
            let polled = Pin::new(&mut this.io).poll_read(cx, buf);
            if !matches!(polled, Poll::Ready(Ok(()))) {
                return polled;
            }
            let read = before..buf.filled().len();
            let taken = this.framing.advance(&buf.filled()[read.clone()]);
            if taken < read.len() {
                // What follows the end of a request waits for its answer.
                this.held
                    .extend_from_slice(&buf.filled()[read.start + taken..read.end]);
                buf.set_filled(read.start + taken);
            }
        }
        this.note_read(&buf.filled()[before..]);
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> ProblemTransport<T> {
    /// The client takes nothing: `Pending` until it has taken nothing for `stall_limit`, then
    /// the error that closes the connection.
    fn poll_stalled(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let limit = self.stall_limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing of the answer for too long",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Writes what is left of a replacement; `Ready` once it is all written.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            match Pin::new(&mut self.io).poll_write(cx, &self.pending) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(written)) => {
                    self.pending.drain(..written);
                }
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ProblemTransport<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if let Poll::Ready(Err(error)) = this.poll_pending(cx) {
            return Poll::Ready(Err(error));
        }
        if !this.pending.is_empty() {
            return Poll::Pending;
        }
        if buf.starts_with(b"HTTP/1.1 4")
            && let Some(answer) = replacement(buf, this.request_line)
        {
            this.pending = answer;
            this.note_answer();
            // The library's bytes are taken as written; ours go out in their place.
            let _ = this.poll_pending(cx);
            return Poll::Ready(Ok(buf.len()));
        }
        this.note_answer();
        match Pin::new(&mut this.io).poll_write(cx, buf) {
            Poll::Pending => this.poll_stalled(cx),
            written => {
                this.stalled = None;
                written
            }
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.poll_pending(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut self.io).poll_flush(cx),
            other => other,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.poll_pending(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut self.io).poll_shutdown(cx),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_accepted_socket_holds_a_bounded_send_buffer() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let _client = tokio::net::TcpStream::connect(address)
            .await
            .expect("connect");
        let (accepted, _) = listener.accept().await.expect("accept");
        prepare(&accepted);
        let socket = socket2::SockRef::from(&accepted);
        // Linux doubles what it is asked for (its own bookkeeping), and no longer grows it.
        assert_eq!(
            socket.send_buffer_size().expect("SO_SNDBUF"),
            2 * SEND_BUFFER_BYTES
        );
        assert!(accepted.nodelay().expect("TCP_NODELAY"));
    }

    #[tokio::test]
    async fn a_client_that_reads_nothing_is_given_up_on_and_one_that_reads_is_not() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let answer = vec![b'x'; 256 * 1024];
        // Nothing is read: the write stops moving, and fails once it has not moved for the limit.
        let (_client, server) = tokio::io::duplex(1024);
        let mut transport = ProblemTransport::new(server, Duration::from_millis(200));
        let error = transport.write_all(&answer).await.expect_err("given up on");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        // A client that reads, however slowly (here 16 KiB every 20 ms: the whole answer takes
        // longer than the limit), is written to to the end: the limit is on no progress.
        let (mut client, server) = tokio::io::duplex(16 * 1024);
        let mut transport = ProblemTransport::new(server, Duration::from_millis(200));
        let reader = tokio::spawn(async move {
            let mut read = Vec::new();
            let mut chunk = [0_u8; 64 * 1024];
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                match client.read(&mut chunk).await.expect("read") {
                    0 => return read.len(),
                    n => read.extend_from_slice(&chunk[..n]),
                }
            }
        });
        transport.write_all(&answer).await.expect("written");
        transport.shutdown().await.expect("closed");
        assert_eq!(reader.await.expect("reader"), answer.len());
    }

    fn answer(head: &str, request_line: usize) -> Option<(String, serde_json::Value)> {
        let bytes = replacement(head.as_bytes(), request_line)?;
        let text = String::from_utf8(bytes).expect("text");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head");
        let body: serde_json::Value = serde_json::from_str(body).expect("json");
        Some((head.lines().next().expect("a status line").to_owned(), body))
    }

    #[test]
    fn the_librarys_bare_answers_become_problems() {
        let bare_431 = "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\ndate: x\r\n\r\n";
        let (line, body) = answer(bare_431, 0).expect("a problem");
        assert_eq!(line, "HTTP/1.1 431 Request Header Fields Too Large");
        assert_eq!(body["status"], 431);
        // A head trickled past the library's 5 s (`client_request_timeout`).
        let bare_408 = "HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\ndate: x\r\n\r\n";
        let (line, body) = answer(bare_408, 10).expect("a problem");
        assert_eq!(line, "HTTP/1.1 408 Request Timeout");
        assert_eq!(body["status"], 408);
        let bare_400 =
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\ndate: x\r\n\r\n";
        let (line, body) = answer(bare_400, 100).expect("a problem");
        assert_eq!(line, "HTTP/1.1 400 Bad Request");
        insta::assert_snapshot!(body["detail"].as_str().expect("detail"), @"the request could not be read as HTTP/1.1: its request line or a header is malformed");
        let (line, _) = answer(bare_400, 70_000).expect("a problem");
        assert_eq!(line, "HTTP/1.1 414 URI Too Long");
    }

    #[test]
    fn the_services_own_answers_pass_untouched() {
        // A problem the service wrote has a body; a 404 or a 200 is never replaced.
        assert!(answer("HTTP/1.1 400 Bad Request\r\ncontent-length: 120\r\n\r\n", 0).is_none());
        assert!(answer("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n", 0).is_none());
        assert!(answer("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}", 0).is_none());
    }

    #[test]
    fn the_request_line_is_measured_across_reads() {
        let mut transport = ProblemTransport::new((), Duration::from_secs(1));
        transport.note_read(b"GET /");
        transport.note_read(&[b'a'; 100]);
        transport.note_read(b" HTTP/1.1\r\nHost: x\r\n");
        transport.note_read(&[b'b'; 1000]);
        assert_eq!(transport.request_line, 5 + 100 + 10);
        transport.note_answer();
        transport.note_read(b"GET / HTTP/1.1\r\n");
        assert_eq!(transport.request_line, 15);
    }
}
