//! Protections for the whole app: refusing cross-site writes, CSRF tokens on
//! HTML forms, and security headers.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::error::AppError;
use crate::error::Denied;
use crate::error::Malformed;

pub const SESSION_COOKIE: &str = "seatmap_session";

/// The session cookie's name when cookies are Secure: a `__Host-` cookie
/// can only be set by this host over HTTPS, for the whole site, so no
/// sibling subdomain can plant one.
pub const SECURE_SESSION_COOKIE: &str = "__Host-seatmap_session";

/// No inline script at all; inline `style` attributes only (seat
/// coordinates), never `<style>` elements; nothing may frame the app.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; \
     connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; \
     object-src 'none'";

/// The headers every response carries unless its handler set them (the
/// framing headers are `frame_headers`'). Nothing is cached unless its
/// handler says so (the static assets do): pages carry tickets, orders,
/// CSV exports and CSRF tokens, none of which a shared cache may keep.
pub fn header_layers() -> [SetResponseHeaderLayer<HeaderValue>; 4] {
    let set = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
    };
    [
        set(header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        set(header::REFERRER_POLICY, "same-origin"),
        set(
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
        set(header::CACHE_CONTROL, "no-store"),
    ]
}

/// Who may show the app in a frame: by default nobody. With an allow-list
/// (SEATMAP_FRAME_ANCESTORS), the buyer pages may be framed by those
/// origins; the staff pages never may.
#[derive(Clone)]
pub struct FramePolicy {
    /// The CSP for buyer pages (the staff pages always get the default).
    buyer_csp: HeaderValue,
    embeddable: bool,
}

impl FramePolicy {
    /// `checkout_origin`: where the buyer pages' forms may send the buyer
    /// to pay (Stripe Checkout's origin), besides the app itself.
    pub fn new(allowed: &[String], checkout_origin: Option<&str>) -> FramePolicy {
        let mut csp = CONTENT_SECURITY_POLICY.to_string();
        if !allowed.is_empty() {
            let ancestors = format!("frame-ancestors 'self' {}", allowed.join(" "));
            csp = csp.replace("frame-ancestors 'none'", &ancestors);
        }
        if let Some(origin) = checkout_origin {
            csp = csp.replace(
                "form-action 'self'",
                &format!("form-action 'self' {origin}"),
            );
        }
        // Config checked every origin's characters, so this is a valid value.
        let buyer_csp = HeaderValue::from_str(&csp)
            .unwrap_or_else(|_| HeaderValue::from_static(CONTENT_SECURITY_POLICY));
        FramePolicy {
            buyer_csp,
            embeddable: !allowed.is_empty(),
        }
    }

    /// Cookies must then reach a third-party frame: SameSite=None, which
    /// browsers take only with Secure.
    pub fn embeddable(&self) -> bool {
        self.embeddable
    }
}

/// Sets the CSP and X-Frame-Options by the page's audience. A framed
/// buyer page has no X-Frame-Options (it cannot name an allow-list; CSP
/// frame-ancestors decides), and its cookies are marked Partitioned
/// (CHIPS), so that browsers that block third-party cookies still keep
/// them, one jar per embedding site.
pub async fn frame_headers(
    axum::extract::State(policy): axum::extract::State<FramePolicy>,
    request: Request,
    next: Next,
) -> Response {
    let staff = request.uri().path().starts_with("/staff");
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if staff || !policy.embeddable {
        headers
            .entry(header::CONTENT_SECURITY_POLICY)
            .or_insert(if staff {
                HeaderValue::from_static(CONTENT_SECURITY_POLICY)
            } else {
                policy.buyer_csp.clone()
            });
        headers
            .entry(header::X_FRAME_OPTIONS)
            .or_insert(HeaderValue::from_static("DENY"));
        return response;
    }
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(policy.buyer_csp.clone());
    let cookies: Vec<HeaderValue> = headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|cookie| match cookie.to_str() {
            Ok(text) if !text.contains("Partitioned") => {
                HeaderValue::from_str(&format!("{text}; Partitioned")).unwrap_or(cookie.clone())
            }
            _ => cookie.clone(),
        })
        .collect();
    headers.remove(header::SET_COOKIE);
    for cookie in cookies {
        headers.append(header::SET_COOKIE, cookie);
    }
    response
}

/// Refuses (403) a state-changing request that a browser says comes from
/// another site: `Sec-Fetch-Site` other than same-origin/none, or an
/// `Origin` that isn't this host. Requests with neither header (curl, API
/// clients) pass: they carry no victim's cookies.
pub async fn refuse_cross_site(request: Request, next: Next) -> Response {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if !safe && is_cross_site(&request) {
        return AppError::Forbidden(Denied::CrossSite).into_response();
    }
    next.run(request).await
}

fn is_cross_site(request: &Request) -> bool {
    let headers = request.headers();
    if let Some(site) = headers.get("sec-fetch-site") {
        return !(site == "same-origin" || site == "none");
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, authority)| authority.trim_end_matches('/'));
    match (origin_host, host) {
        (Some(origin_host), Some(host)) => !origin_host.eq_ignore_ascii_case(host),
        _ => true,
    }
}

/// The CSRF token lives in its own cookie (the double-submit pattern, as
/// Django keeps it), not in the session: a first visit to a page with forms
/// then costs no session write, so read-only traffic never touches the
/// session store. A forged request carries the victim's cookie but can't
/// read it to put the same value in the form; the cookie is HttpOnly,
/// SameSite=Lax and, with secure cookies, `__Host-` prefixed so no other
/// host can plant one. It is replaced at sign-in and sign-out.
const CSRF_COOKIE: &str = "seatmap_csrf";
const CSRF_COOKIE_SECURE: &str = "__Host-seatmap_csrf";
const MAX_FORM_BYTES: usize = 64 * 1024;

/// This request's CSRF token: the cookie's, or a new one that the response
/// sets as the cookie if a form was rendered with it.
#[derive(Clone)]
pub struct CsrfToken {
    value: String,
    /// The request brought no token: the response must set the cookie, if
    /// anything used the token.
    fresh: bool,
    used: Arc<AtomicBool>,
}

impl CsrfToken {
    /// The token for a form's hidden `csrf` field, masked afresh each
    /// time (see [`mask`]).
    pub fn value(&self) -> String {
        self.used.store(true, Ordering::Relaxed);
        mask(&self.value)
    }
}

/// The token as a page shows it: a random pad, then the token XORed with
/// the pad, both hex. Every page then carries different bytes for the same
/// token, so a compressed page that also reflects the visitor's input
/// (a search box) leaks nothing about the token through its size (BREACH).
fn mask(token: &str) -> String {
    use rand::RngCore;
    let token = HEX.decode(token.as_bytes()).unwrap_or_default();
    let mut pad = vec![0u8; token.len()];
    rand::rng().fill_bytes(&mut pad);
    let masked: Vec<u8> = pad.iter().zip(&token).map(|(p, t)| p ^ t).collect();
    format!("{}{}", HEX.encode(&pad), HEX.encode(&masked))
}

/// The token a form sent, unmasked; None if it isn't a masked token.
fn unmask(sent: &str) -> Option<String> {
    let bytes = HEX.decode(sent.as_bytes()).ok()?;
    let (pad, masked) = bytes.split_at(bytes.len() / 2);
    (bytes.len() % 2 == 0 && !pad.is_empty()).then(|| {
        let token: Vec<u8> = pad.iter().zip(masked).map(|(p, m)| p ^ m).collect();
        HEX.encode(&token)
    })
}

const HEX: data_encoding::Encoding = data_encoding::HEXLOWER_PERMISSIVE;

impl<S: Send + Sync> FromRequestParts<S> for CsrfToken {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<CsrfToken, AppError> {
        parts.extensions.get::<CsrfToken>().cloned().ok_or_else(|| {
            AppError::Internal(anyhow::anyhow!("the CSRF middleware is not installed"))
        })
    }
}

/// Put in a response's extensions (sign-in, sign-out): the CSRF cookie is
/// replaced, so a token seen before is worthless after.
#[derive(Clone, Copy)]
pub struct RotateCsrf;

fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

fn cookie_token(headers: &axum::http::HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_string())
        .filter(|value| value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Reads the CSRF cookie into the request, and sets it on the response
/// when it was missing and a form used it, or when it must be replaced.
pub async fn csrf_cookie(
    axum::extract::State((secure, same_site)): axum::extract::State<(bool, &'static str)>,
    mut request: Request,
    next: Next,
) -> Response {
    let name = if secure {
        CSRF_COOKIE_SECURE
    } else {
        CSRF_COOKIE
    };
    let token = match cookie_token(request.headers(), name) {
        Some(value) => CsrfToken {
            value,
            fresh: false,
            used: Arc::default(),
        },
        None => CsrfToken {
            value: new_token(),
            fresh: true,
            used: Arc::default(),
        },
    };
    request.extensions_mut().insert(token.clone());
    let mut response = next.run(request).await;
    let value = if response.extensions().get::<RotateCsrf>().is_some() {
        new_token()
    } else if token.fresh && token.used.load(Ordering::Relaxed) {
        token.value
    } else {
        return response;
    };
    let secure_attribute = if secure { "; Secure" } else { "" };
    let cookie = format!(
        "{name}={value}; Path=/; HttpOnly; SameSite={same_site}; Max-Age=43200{secure_attribute}"
    );
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

#[derive(Deserialize, Default)]
struct CsrfField {
    csrf: Option<String>,
}

/// A form with nothing but its CSRF token (a button).
#[derive(serde::Deserialize)]
pub struct NoFields {}

/// A urlencoded form whose `csrf` field must match the CSRF cookie (403
/// otherwise). Replaces `Form` on every HTML POST.
pub struct CsrfForm<T>(pub T);

impl<S, T> FromRequest<S> for CsrfForm<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = AppError;

    async fn from_request(request: Request, state: &S) -> Result<CsrfForm<T>, AppError> {
        let (mut parts, body) = request.into_parts();
        let expected = CsrfToken::from_request_parts(&mut parts, state).await?;
        let bytes: Bytes = axum::body::to_bytes(body, MAX_FORM_BYTES)
            .await
            .map_err(|_| AppError::BadRequest(Malformed::FormTooLarge))?;
        let sent = serde_urlencoded::from_bytes::<CsrfField>(&bytes)
            .unwrap_or_default()
            .csrf;
        check_csrf(&expected, sent.as_deref())?;
        serde_urlencoded::from_bytes(&bytes)
            .map(CsrfForm)
            .map_err(|err| AppError::BadRequest(Malformed::Form(err.to_string())))
    }
}

/// 403 unless the form sent the request's CSRF token. A request that
/// brought no cookie can't match: its token is one nobody has seen.
/// For forms `CsrfForm` can't read (file uploads).
pub fn check_csrf(expected: &CsrfToken, sent: Option<&str>) -> Result<(), AppError> {
    match sent.and_then(unmask) {
        Some(sent) if !expected.fresh && constant_time_eq(&expected.value, &sent) => Ok(()),
        _ => Err(AppError::Forbidden(Denied::FormExpired)),
    }
}

pub fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().method(Method::POST).uri("/x");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn same_origin_and_headerless_requests_pass_cross_site_ones_do_not() {
        assert!(!is_cross_site(&post(&[])));
        assert!(!is_cross_site(&post(&[("sec-fetch-site", "same-origin")])));
        assert!(!is_cross_site(&post(&[
            ("origin", "http://app:3000"),
            ("host", "app:3000")
        ])));
        assert!(is_cross_site(&post(&[("sec-fetch-site", "cross-site")])));
        assert!(is_cross_site(&post(&[("sec-fetch-site", "same-site")])));
        assert!(is_cross_site(&post(&[
            ("origin", "https://evil.example"),
            ("host", "app:3000")
        ])));
        assert!(is_cross_site(&post(&[
            ("origin", "null"),
            ("host", "app:3000")
        ])));
    }

    #[test]
    fn a_token_is_masked_differently_every_time_and_unmasks_to_itself() {
        let token = new_token();
        let (one, two) = (mask(&token), mask(&token));
        assert_ne!(one, two, "each page shows other bytes");
        assert_eq!(one.len(), 128);
        assert_eq!(unmask(&one).as_deref(), Some(token.as_str()));
        assert_eq!(unmask(&two).as_deref(), Some(token.as_str()));
        assert_ne!(
            unmask(&token).as_deref(),
            Some(token.as_str()),
            "the bare token is not a masked one"
        );
        assert_eq!(unmask("not hex"), None);
        assert_eq!(unmask(""), None);
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "ab"));
    }
}
