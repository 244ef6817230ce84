//! Response compression: brotli or gzip, as the client's `Accept-Encoding` prefers, for answers
//! of at least [`MIN_BYTES`] of text or JSON (docs/api.md, "Compression"; the sizes and costs
//! measured are in docs/performance.md).
//!
//! A body is compressed whole (every answer of the service is built in memory first): on the
//! async worker when small, on the blocking pool from [`BLOCKING_FROM_BYTES`] on, so that a
//! 6 MB rating answer does not hold up other requests. `ETag` is left as it is: it names the
//! record's version, which `If-Match` compares, whatever the encoding.

use std::io::Write;

use actix_web::HttpMessage;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;

use crate::machinery::body_budget::BodyShare;
use crate::machinery::list_budget::Share;
use crate::machinery::page_body::{CHUNK_BYTES, PageAnswer, PageBody};

/// Smaller answers go as they are: compressing them saves less than a packet.
pub const MIN_BYTES: usize = 1024;
/// Bodies from this size on are compressed on the blocking pool.
pub const BLOCKING_FROM_BYTES: usize = 64 * 1024;
/// brotli's quality: 4 compresses JSON about as well as gzip's best, several times faster.
const BROTLI_QUALITY: u32 = 4;
/// gzip's level: 5, the usual balance.
const GZIP_LEVEL: u32 = 5;
/// From this size on, brotli uses quality 1: a 6 MB rating answer took 60 ms at quality 4
/// against 6 ms to compute it, 14 ms at quality 1, and still shrinks to 3 % (docs/performance.md,
/// "Rating over the API"). gzip keeps its level: level 1 saved only 3 ms of its 20 and sent
/// 2.6 times the bytes.
pub const FAST_FROM_BYTES: usize = 1024 * 1024;
const BROTLI_FAST_QUALITY: u32 = 1;

/// What a response may be sent as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Brotli,
    Gzip,
}

impl Coding {
    /// The coding's name in `Accept-Encoding` and `Content-Encoding`.
    pub fn token(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
        }
    }

    /// `body` compressed.
    pub fn encode(self, body: &[u8]) -> std::io::Result<Vec<u8>> {
        match self {
            Coding::Brotli => {
                let quality = if body.len() >= FAST_FROM_BYTES {
                    BROTLI_FAST_QUALITY
                } else {
                    BROTLI_QUALITY
                };
                let mut out = Vec::with_capacity(body.len() / 4);
                {
                    let mut writer =
                        brotli::CompressorWriter::new(&mut out, 32 * 1024, quality, 22);
                    writer.write_all(body)?;
                }
                Ok(out)
            }
            Coding::Gzip => {
                let mut encoder = flate2::write::GzEncoder::new(
                    Vec::with_capacity(body.len() / 4),
                    flate2::Compression::new(GZIP_LEVEL),
                );
                encoder.write_all(body)?;
                encoder.finish()
            }
        }
    }
}

/// The coding `Accept-Encoding` prefers among those served (brotli first on a tie), if any.
/// `q=0` refuses a coding; `*` stands for any not named.
pub fn negotiate(accept_encoding: &str) -> Option<Coding> {
    let mut best: Option<(Coding, u32)> = None;
    let mut wildcard: Option<u32> = None;
    let mut named = Vec::new();
    for item in accept_encoding.split(',') {
        let mut parts = item.split(';');
        let token = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let quality = parts
            .filter_map(|parameter| parameter.trim().strip_prefix("q="))
            .filter_map(|value| value.trim().parse::<f32>().ok())
            .next()
            .unwrap_or(1.0);
        let quality = (quality.clamp(0.0, 1.0) * 1000.0) as u32;
        let coding = match token.as_str() {
            "br" => Coding::Brotli,
            "gzip" | "x-gzip" => Coding::Gzip,
            "*" => {
                wildcard = Some(quality);
                continue;
            }
            _ => continue,
        };
        named.push(coding);
        if quality > 0
            && best.is_none_or(|(held, q)| {
                quality > q || (quality == q && coding == Coding::Brotli && held != coding)
            })
        {
            best = Some((coding, quality));
        }
    }
    if let Some(quality) = wildcard.filter(|q| *q > 0) {
        for coding in [Coding::Brotli, Coding::Gzip] {
            if !named.contains(&coding) && best.is_none_or(|(_, q)| quality > q) {
                best = Some((coding, quality));
            }
        }
    }
    best.map(|(coding, _)| coding)
}

/// Whether a body of this content type gains from compression: JSON, problem+json, text,
/// the documentation's scripts and styles.
fn compressible(content_type: Option<&HeaderValue>) -> bool {
    let Some(value) = content_type.and_then(|value| value.to_str().ok()) else {
        return false;
    };
    let media = value.split(';').next().unwrap_or_default().trim();
    media.starts_with("text/")
        || media.ends_with("json")
        || media == "application/javascript"
        || media == "image/svg+xml"
}

/// The coding an answer to a request of `method` with `headers` is sent in, if any: none for
/// `HEAD` (no body), else what `Accept-Encoding` prefers ([`negotiate`]).
pub fn requested_coding(method: &Method, headers: &header::HeaderMap) -> Option<Coding> {
    (method != Method::HEAD)
        .then(|| headers.get(header::ACCEPT_ENCODING))
        .flatten()
        .and_then(|value| value.to_str().ok())
        .and_then(negotiate)
}

pub async fn middleware(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let coding = requested_coding(request.method(), request.headers());
    let response = next.call(request).await?.map_into_boxed_body();
    // The request's share of the body budget (a write's, counted for its answer:
    // `body_budget`) goes with the answer.
    let body_share = response
        .request()
        .extensions_mut()
        .remove::<BodyShare>()
        .map(|BodyShare(share)| share);
    let Some(coding) = coding else {
        return Ok(in_chunks(response, body_share));
    };
    let head = response.response();
    let eligible = !head.headers().contains_key(header::CONTENT_ENCODING)
        && !matches!(
            head.status(),
            StatusCode::NO_CONTENT | StatusCode::NOT_MODIFIED
        )
        && compressible(head.headers().get(header::CONTENT_TYPE))
        && matches!(head.body().size(), actix_web::body::BodySize::Sized(size) if size >= MIN_BYTES as u64);
    if !eligible {
        return Ok(in_chunks(response, body_share));
    }
    let (request, response) = response.into_parts();
    let (mut head, body) = response.into_parts();
    // A list page's share of the list budget, else the body budget's: held while the answer
    // is read whole and compressed, then for its compressed bytes until the client has read
    // them.
    let share = head
        .extensions()
        .get::<PageAnswer>()
        .and_then(PageAnswer::take_share)
        .or(body_share);
    let bytes = match body.try_into_bytes() {
        Ok(bytes) => bytes,
        // A sized body that streams its buffer (a list page holding its share of the list
        // budget until it is taken): read whole, it is the same bytes.
        Err(body) => match actix_web::body::to_bytes(body).await {
            Ok(bytes) => bytes,
            Err(error) => {
                return Err(actix_web::error::ErrorInternalServerError(
                    error.to_string(),
                ));
            }
        },
    };
    let encoded = if bytes.len() >= BLOCKING_FROM_BYTES {
        let bytes = bytes.clone();
        actix_web::web::block(move || coding.encode(&bytes)).await?
    } else {
        coding.encode(&bytes)
    };
    let headers = head.headers_mut();
    headers.append(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    let body: Vec<u8> = match encoded {
        Ok(encoded) => {
            headers.insert(
                header::CONTENT_ENCODING,
                HeaderValue::from_static(coding.token()),
            );
            encoded
        }
        Err(error) => {
            tracing::warn!(%error, "could not compress a response; sent as it is");
            bytes.to_vec()
        }
    };
    let body = if share.is_some() || body.len() > CHUNK_BYTES {
        BoxBody::new(PageBody::new(body, share))
    } else {
        BoxBody::new(body)
    };
    Ok(ServiceResponse::new(request, head.set_body(body)))
}

/// An answer of more than [`CHUNK_BYTES`] held whole in memory, handed to the connection in
/// chunks (`PageBody`), with `share` (the request's share of the body budget) until they are
/// taken. The HTTP library writes a body given whole into its buffer at once and, the answer
/// being complete, starts the connection's 5 s keep-alive timer: a client still reading
/// megabytes of it slowly was cut off when it ran out. Given in chunks, the answer is
/// complete only when its last chunk is taken, with at most a few chunks left to write; and
/// it must be read by its deadline (`page_body::read_deadline`). A smaller answer goes into
/// the library's buffer at once and lets the share go.
fn in_chunks(response: ServiceResponse<BoxBody>, share: Option<Share>) -> ServiceResponse<BoxBody> {
    if !matches!(response.response().body().size(), actix_web::body::BodySize::Sized(size) if size > CHUNK_BYTES as u64)
    {
        return response;
    }
    let (request, response) = response.into_parts();
    let (head, body) = response.into_parts();
    let body = match body.try_into_bytes() {
        Ok(bytes) => BoxBody::new(PageBody::new(bytes, share)),
        // Already a stream holding its own share (a list page, a rating answer).
        Err(body) => body,
    };
    ServiceResponse::new(request, head.set_body(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clients_preference_decides() {
        assert_eq!(negotiate("gzip, deflate, br"), Some(Coding::Brotli));
        assert_eq!(negotiate("gzip"), Some(Coding::Gzip));
        assert_eq!(negotiate("br;q=0.5, gzip;q=0.9"), Some(Coding::Gzip));
        assert_eq!(negotiate("br;q=0, gzip;q=0"), None);
        assert_eq!(negotiate("identity"), None);
        assert_eq!(negotiate("*"), Some(Coding::Brotli));
        assert_eq!(negotiate("br;q=0, *"), Some(Coding::Gzip));
        assert_eq!(negotiate(""), None);
    }

    #[test]
    fn what_is_compressed_comes_back_whole() {
        let record = br#"{"name":"UK Mobile","startDate":"2026-01-01"}"#;
        // One body under FAST_FROM_BYTES, one over it (brotli's fast quality).
        let small = record.repeat(100);
        let large = record.repeat(FAST_FROM_BYTES / record.len() + 1);
        for (coding, body) in [Coding::Brotli, Coding::Gzip]
            .into_iter()
            .flat_map(|coding| [(coding, &small), (coding, &large)])
        {
            let encoded = coding.encode(body).expect("encoded");
            assert!(
                encoded.len() < body.len() / 10,
                "{coding:?}: {}",
                encoded.len()
            );
            let mut decoded = Vec::new();
            match coding {
                Coding::Brotli => {
                    std::io::copy(
                        &mut brotli::Decompressor::new(&encoded[..], 4096),
                        &mut decoded,
                    )
                    .expect("brotli");
                }
                Coding::Gzip => {
                    std::io::copy(
                        &mut flate2::read::GzDecoder::new(&encoded[..]),
                        &mut decoded,
                    )
                    .expect("gzip");
                }
            }
            assert_eq!(&decoded, body);
        }
        insta::assert_snapshot!(format!("{:?}", negotiate("deflate, gzip;q=1.0, br;q=1.0")), @"Some(Brotli)");
    }

    #[actix_web::test]
    async fn a_compressed_page_stays_in_the_list_budget_until_read() {
        use actix_web::{App, HttpResponse, middleware::from_fn, test, web};

        use crate::machinery::list_budget::ListBudget;

        let whole = 1024 * 1024;
        let budget = std::sync::Arc::new(ListBudget::new(whole));
        let page = std::sync::Arc::clone(&budget);
        let app = test::init_service(App::new().wrap(from_fn(middleware)).route(
            "/page",
            web::get().to(move || {
                let page = std::sync::Arc::clone(&page);
                async move {
                    // 300 KiB of records, not very compressible.
                    let body: Vec<u8> = (0..300 * 1024u32)
                        .map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789"[(i * 7919 % 36) as usize])
                        .collect();
                    // A page of one site: its worst case is more than these bytes.
                    let sites = crate::machinery::list_budget::tests::site_fields();
                    let share = page.take(sites, 1).await;
                    let page_body = PageBody::new(body, Some(share));
                    let mut response = HttpResponse::Ok();
                    response.extensions_mut().insert(page_body.answer());
                    response.content_type("application/json").body(page_body)
                }
            }),
        ))
        .await;
        let request = test::TestRequest::get()
            .uri("/page")
            .insert_header((header::ACCEPT_ENCODING, "gzip"))
            .to_request();
        let response = test::call_service(&app, request).await;
        assert_eq!(
            response
                .headers()
                .get(header::CONTENT_ENCODING)
                .expect("gzip"),
            "gzip"
        );
        // Written and compressed, not yet read: its compressed bytes are still counted.
        let held = whole - budget.available_bytes();
        assert!(held > 0 && held < 300 * 1024, "{held}");
        let body = test::read_body(response).await;
        assert!(held >= body.len(), "{held} {}", body.len());
        assert_eq!(budget.available_bytes(), whole, "read: given back");
    }

    #[actix_web::test]
    async fn a_writes_answer_keeps_the_requests_body_share_until_read() {
        use actix_web::{
            App, HttpMessage, HttpRequest, HttpResponse, middleware::from_fn, test, web,
        };

        use crate::machinery::body_budget::{BodyBudget, BodyShare};

        let whole = 4 * 1024 * 1024;
        let budget = std::sync::Arc::new(BodyBudget::new(whole));
        let shared = std::sync::Arc::clone(&budget);
        let app = test::init_service(App::new().wrap(from_fn(middleware)).route(
            "/write",
            web::post().to(move |request: HttpRequest| {
                let budget = std::sync::Arc::clone(&shared);
                async move {
                    // The share a write holds while handled (`hold_while_handled`): 1 MiB.
                    let share = budget.take(1024 * 1024).await;
                    request.extensions_mut().insert(BodyShare(share));
                    // A 300 KiB answer (a replay of a large create), not very compressible.
                    let body: Vec<u8> = (0..300 * 1024u32)
                        .map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789"[(i * 7919 % 36) as usize])
                        .collect();
                    HttpResponse::Created()
                        .content_type("application/json")
                        .body(body)
                }
            }),
        ))
        .await;
        for coding in [None, Some("gzip")] {
            let mut request = test::TestRequest::post().uri("/write");
            if let Some(coding) = coding {
                request = request.insert_header((header::ACCEPT_ENCODING, coding));
            }
            let response = test::call_service(&app, request.to_request()).await;
            // Answered, not yet read: the answer's bytes are still counted, no more.
            let held = whole - budget.available_bytes();
            let expected = match coding {
                None => 300 * 1024,
                Some(_) => match response.response().body().size() {
                    actix_web::body::BodySize::Sized(size) => size as usize,
                    other => panic!("{other:?}"),
                },
            };
            assert!(
                held > 0 && held >= expected && held < expected + 1024,
                "{coding:?}: {held} for {expected}"
            );
            let body = test::read_body(response).await;
            assert!(held >= body.len(), "{coding:?}: {held} {}", body.len());
            assert_eq!(
                budget.available_bytes(),
                whole,
                "{coding:?}: read, given back"
            );
        }
    }
}
