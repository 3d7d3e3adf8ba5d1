//! Protections for the whole app: refusing cross-site writes, CSRF tokens on
//! HTML forms, and security headers.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_sessions::Session;

use crate::error::AppError;

/// No inline script at all; inline `style` attributes only (seat
/// coordinates), never `<style>` elements; nothing may frame the app.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; \
     connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; \
     object-src 'none'";

/// The headers every response carries unless its handler set them.
pub fn header_layers() -> [SetResponseHeaderLayer<HeaderValue>; 5] {
    let set = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
    };
    [
        set(header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        set(header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        set(header::REFERRER_POLICY, "same-origin"),
        set(header::X_FRAME_OPTIONS, "DENY"),
        set(
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ]
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
        return AppError::Forbidden("Cross-site requests can't change anything here.".into())
            .into_response();
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

const CSRF_KEY: &str = "csrf";
const MAX_FORM_BYTES: usize = 64 * 1024;

fn session_error(err: tower_sessions::session::Error) -> AppError {
    AppError::Unavailable(anyhow::Error::new(err).context("session store"))
}

/// This session's CSRF token, made on first use. Every HTML form that
/// changes something carries it in a hidden `csrf` field.
pub async fn csrf_token(session: &Session) -> Result<String, AppError> {
    if let Some(token) = session
        .get::<String>(CSRF_KEY)
        .await
        .map_err(session_error)?
    {
        return Ok(token);
    }
    let token = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    session
        .insert(CSRF_KEY, &token)
        .await
        .map_err(session_error)?;
    Ok(token)
}

#[derive(Deserialize, Default)]
struct CsrfField {
    csrf: Option<String>,
}

/// A urlencoded form whose `csrf` field must match the session's token
/// (403 otherwise). Replaces `Form` on every HTML POST.
pub struct CsrfForm<T>(pub T);

impl<S, T> FromRequest<S> for CsrfForm<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = AppError;

    async fn from_request(request: Request, state: &S) -> Result<CsrfForm<T>, AppError> {
        let (mut parts, body) = request.into_parts();
        let session = Session::from_request_parts(&mut parts, state)
            .await
            .map_err(|(_, message)| AppError::Internal(anyhow::anyhow!(message)))?;
        let expected = session_csrf(&session).await?;
        let bytes: Bytes = axum::body::to_bytes(body, MAX_FORM_BYTES)
            .await
            .map_err(|_| AppError::BadRequest("The form is too large.".into()))?;
        let sent = serde_urlencoded::from_bytes::<CsrfField>(&bytes)
            .unwrap_or_default()
            .csrf;
        check_csrf(expected.as_deref(), sent.as_deref())?;
        serde_urlencoded::from_bytes(&bytes)
            .map(CsrfForm)
            .map_err(|err| AppError::BadRequest(format!("Invalid form: {err}")))
    }
}

/// 403 unless the form sent the session's token. For forms `CsrfForm`
/// can't read (file uploads).
pub fn check_csrf(expected: Option<&str>, sent: Option<&str>) -> Result<(), AppError> {
    match (expected, sent) {
        (Some(e), Some(s)) if constant_time_eq(e, s) => Ok(()),
        _ => Err(AppError::Forbidden(
            "This form has expired. Reload the page and try again.".into(),
        )),
    }
}

/// The session's CSRF token, if it has one yet.
pub async fn session_csrf(session: &Session) -> Result<Option<String>, AppError> {
    session.get::<String>(CSRF_KEY).await.map_err(session_error)
}

fn constant_time_eq(a: &str, b: &str) -> bool {
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
    fn tokens_compare_whole() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "ab"));
    }
}
