//! A body compressed once and served many times: each of gzip and Brotli
//! is made when the body is prepared, so a request picks bytes instead of
//! burning CPU (compressing the 1.7 MB API viewer per request took 95 ms;
//! picking its prepared Brotli takes microseconds). The router's
//! compression layer leaves a response alone once it has a
//! Content-Encoding.

use std::io::Write;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A body, its compressed forms, and a strong validator.
pub struct Prepared {
    identity: Bytes,
    gzip: Option<Bytes>,
    br: Option<Bytes>,
    mime: HeaderValue,
    /// Quoted, as ETag wants it; one per encoding (with a suffix).
    etag: String,
}

/// Which encoding to send, by what the request accepts: Brotli, then
/// gzip, else none. A coding the client lists with q=0 is one it refuses.
fn accepted(headers: &HeaderMap) -> (bool, bool) {
    let mut br = false;
    let mut gzip = false;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';').map(str::trim);
            let coding = parts.next().unwrap_or("").to_ascii_lowercase();
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            match coding.as_str() {
                "br" => br = !refused,
                "gzip" => gzip = !refused,
                "*" if !refused => {
                    br = true;
                    gzip = true;
                }
                _ => {}
            }
        }
    }
    (br, gzip)
}

/// Kinds of body worth compressing (images other than SVG already are).
fn compressible(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.starts_with("application/json")
        || mime.starts_with("application/javascript")
        || mime.starts_with("image/svg")
}

/// How hard to compress: `Best` for what is made once and served for the
/// life of the process (static files), `Fast` for what is made again
/// every fraction of a second (a hot seat map).
#[derive(Debug, Clone, Copy)]
pub enum Effort {
    Best,
    Fast,
}

impl Prepared {
    /// Compresses `body` (if its kind is worth it) and names it by `tag`,
    /// a value that changes whenever the body does (a content hash). CPU
    /// work: call it off the async runtime for anything large.
    pub fn new(body: Bytes, mime: &str, tag: &str, effort: Effort) -> Prepared {
        let worth_it = compressible(mime) && body.len() > 256;
        let (gzip_level, br_quality) = match effort {
            Effort::Best => (9, 9),
            Effort::Fast => (4, 4),
        };
        let gzip = worth_it.then(|| {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(gzip_level));
            // Writing to a Vec can't fail.
            let _ = encoder.write_all(&body);
            Bytes::from(encoder.finish().unwrap_or_default())
        });
        let br = worth_it.then(|| {
            let mut out = Vec::new();
            let params = brotli::enc::BrotliEncoderParams {
                quality: br_quality,
                ..Default::default()
            };
            let _ = brotli::BrotliCompress(&mut &body[..], &mut out, &params);
            Bytes::from(out)
        });
        Prepared {
            identity: body,
            gzip: gzip.filter(|g| !g.is_empty()),
            br: br.filter(|b| !b.is_empty()),
            mime: HeaderValue::from_str(mime)
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
            etag: tag.to_string(),
        }
    }

    /// The body in the best encoding the request accepts, or 304 when the
    /// request already has it (If-None-Match).
    pub fn respond(&self, request: &HeaderMap, cache_control: &'static str) -> Response {
        let (br, gzip) = accepted(request);
        let (body, encoding, suffix) = match (&self.br, &self.gzip) {
            (Some(body), _) if br => (body.clone(), Some("br"), "-br"),
            (_, Some(body)) if gzip => (body.clone(), Some("gzip"), "-gz"),
            _ => (self.identity.clone(), None, ""),
        };
        let etag = format!("\"{}{suffix}\"", self.etag);
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, self.mime.clone());
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(cache_control),
        );
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        if let Ok(value) = HeaderValue::from_str(&etag) {
            headers.insert(header::ETAG, value);
        }
        let not_modified = request
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|tag| tag.trim().trim_start_matches("W/") == etag);
        if not_modified {
            return (StatusCode::NOT_MODIFIED, headers).into_response();
        }
        if let Some(encoding) = encoding {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
        }
        (headers, body).into_response()
    }

    /// Bytes held, all encodings together.
    #[cfg(test)]
    fn size(&self) -> usize {
        self.identity.len()
            + self.gzip.as_ref().map_or(0, Bytes::len)
            + self.br.as_ref().map_or(0, Bytes::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(accept: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(accept).unwrap(),
        );
        headers
    }

    #[test]
    fn the_best_accepted_encoding_is_sent_and_a_known_one_is_not_sent_again() {
        let body = Bytes::from("body { color: red; }\n".repeat(100));
        let prepared = Prepared::new(body.clone(), "text/css", "abc", Effort::Best);
        let br = prepared.respond(&asking("gzip, deflate, br"), "public");
        assert_eq!(br.headers()[header::CONTENT_ENCODING], "br");
        assert_eq!(br.headers()[header::ETAG], "\"abc-br\"");
        let gz = prepared.respond(&asking("gzip, br;q=0"), "public");
        assert_eq!(gz.headers()[header::CONTENT_ENCODING], "gzip");
        let plain = prepared.respond(&HeaderMap::new(), "public");
        assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(plain.headers()[header::ETAG], "\"abc\"");
        let mut again = asking("br");
        again.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("\"abc-br\""),
        );
        assert_eq!(
            prepared.respond(&again, "public").status(),
            StatusCode::NOT_MODIFIED
        );
        assert!(
            prepared.size() < body.len() * 2,
            "compressed forms are small"
        );
    }

    #[test]
    fn images_are_not_compressed_again() {
        let prepared = Prepared::new(Bytes::from(vec![7u8; 4096]), "image/png", "x", Effort::Fast);
        let response = prepared.respond(&asking("br, gzip"), "public");
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
    }
}
