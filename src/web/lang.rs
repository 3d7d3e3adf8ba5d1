//! Which language a request is served in: the buyer's own choice, kept in
//! the session, else the best match for Accept-Language; and the switch on
//! every buyer page that makes that choice.

use axum::extract::{Path, Query, Request};
use axum::http::header::ACCEPT_LANGUAGE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use tower_sessions::Session;

use crate::error::{AppError, AppResult, Missing};
use crate::i18n::{self, Lang};

/// The session key the buyer's choice is kept under.
const SESSION_KEY: &str = "lang";

/// Middleware: serves the request (its templates, notices and errors) in
/// its language. A session is read only if the request brought one. Staff
/// pages and the staff API are English (their words are not translated
/// yet, and their money and dates should read the same as their words).
pub async fn choose(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if path.starts_with("/staff") || path.starts_with("/api/staff") {
        return i18n::request_scope(Lang::En, false, next.run(request)).await;
    }
    // The JSON API follows Accept-Language alone, and static files have no
    // words: neither reads the session for it.
    let reads_choice = !path.starts_with("/api/") && !path.starts_with("/static/");
    let chosen = match request
        .extensions()
        .get::<Session>()
        .filter(|_| reads_choice)
    {
        Some(session) => session
            .get::<String>(SESSION_KEY)
            .await
            .ok()
            .flatten()
            .and_then(|tag| Lang::from_tag(&tag)),
        None => None,
    };
    let lang = chosen.unwrap_or_else(|| {
        request
            .headers()
            .get(ACCEPT_LANGUAGE)
            .and_then(|value| value.to_str().ok())
            .map(Lang::negotiate)
            .unwrap_or_default()
    });
    i18n::request_scope(lang, true, next.run(request)).await
}

#[derive(Deserialize)]
pub(crate) struct SwitchQuery {
    /// The page to go back to (a path on this site); without it, the page
    /// the link was on (Referer: sent same-origin only, by our policy).
    back: Option<String>,
}

/// `GET /language/{tag}`: remembers the language in the session and goes
/// back to the page. A link, so it works without JavaScript; it changes
/// nothing but how pages read.
pub(crate) async fn switch(
    Path(tag): Path<String>,
    Query(query): Query<SwitchQuery>,
    headers: axum::http::HeaderMap,
    session: Session,
) -> AppResult<Response> {
    let lang = Lang::from_tag(&tag).ok_or(AppError::NotFound(Missing::Page))?;
    session
        .insert(SESSION_KEY, lang.tag())
        .await
        .map_err(|err| AppError::Internal(anyhow::anyhow!("saving the language: {err}")))?;
    let from_referer = || {
        let referer = headers.get(axum::http::header::REFERER)?.to_str().ok()?;
        let uri: axum::http::Uri = referer.parse().ok()?;
        Some(uri.path_and_query()?.as_str().to_string())
    };
    let back = query
        .back
        .or_else(from_referer)
        .filter(|path| local_path(path))
        .unwrap_or_else(|| "/".to_string());
    Ok(Redirect::to(&back).into_response())
}

/// A path on this site, never another's ("//host", "/\\host").
fn local_path(path: &str) -> bool {
    path.starts_with('/')
        && !path.starts_with("//")
        && !path.contains('\\')
        && !path.starts_with("/language/")
        && path.len() <= 2_000
        && !path.chars().any(char::is_control)
        && axum::http::HeaderValue::from_str(path).is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_path_of_this_site_is_gone_back_to() {
        assert!(super::local_path("/events/1?section=2"));
        for other in [
            "//evil.example/",
            "https://evil.example/",
            "/\\evil.example",
            "/language/de",
            "/\n",
            "/a\u{7f}",
        ] {
            assert!(!super::local_path(other), "{other}");
        }
    }
}
