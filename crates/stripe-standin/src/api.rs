//! What every API call goes through: the secret key, queued failures and
//! lost answers, idempotency keys, form bodies, and errors shaped as
//! Stripe's.

use axum::Json;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::standin::StandIn;
use crate::state::Shared;

pub(crate) fn error(
    status: StatusCode,
    kind: &str,
    message: &str,
    param: Option<&str>,
    code: Option<&str>,
) -> Response {
    let mut detail = json!({ "type": kind, "message": message });
    if let Some(param) = param {
        detail["param"] = json!(param);
    }
    if let Some(code) = code {
        detail["code"] = json!(code);
    }
    (status, Json(json!({ "error": detail }))).into_response()
}

pub(crate) fn invalid(message: &str, param: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        message,
        Some(param),
        Some("parameter_invalid"),
    )
}

/// Checks the secret key, and takes the next queued failure.
pub(crate) fn gate(standin: &StandIn, headers: &HeaderMap, path: &str) -> Option<Response> {
    let mut shared = standin.lock();
    let idempotency_key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    shared.calls.push((path.to_string(), idempotency_key));
    let key = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if !key.is_some_and(|k| k.starts_with("sk_")) {
        return Some(error(
            StatusCode::UNAUTHORIZED,
            "invalid_request_error",
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.",
            None,
            None,
        ));
    }
    if !shared.failures.is_empty() {
        let status = shared.failures.remove(0);
        return Some(error(
            StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "api_error",
            "The stand-in was told to fail this request.",
            None,
            None,
        ));
    }
    None
}

/// An answer kept under its idempotency key, or the check that the key
/// is not reused for something else.
pub(crate) enum Idempotent {
    Fresh(Option<String>),
    Replay(Response),
}

pub(crate) fn idempotent_in(shared: &Shared, headers: &HeaderMap, what: &str) -> Idempotent {
    let Some(key) = headers.get("idempotency-key").and_then(|v| v.to_str().ok()) else {
        return Idempotent::Fresh(None);
    };
    match shared.idempotency.get(key) {
        Some((first, status, body)) if first == what => {
            let mut response = (
                StatusCode::from_u16(*status).unwrap_or(StatusCode::OK),
                Json(body.clone()),
            )
                .into_response();
            response
                .headers_mut()
                .insert("idempotent-replayed", "true".parse().expect("literal"));
            Idempotent::Replay(response)
        }
        Some(_) => Idempotent::Replay(error(
            StatusCode::BAD_REQUEST,
            "idempotency_error",
            &format!(
                "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '{key}' if you meant to execute a different request."
            ),
            None,
            None,
        )),
        None => Idempotent::Fresh(Some(key.to_string())),
    }
}

pub(crate) fn form(body: &[u8]) -> Result<Vec<(String, String)>, Response> {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(body).map_err(|_| {
        error(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "The body is not form-encoded.",
            None,
            None,
        )
    })
}

pub(crate) fn field<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A queued "answer lost": the work is done and kept under its key; the
/// caller gets an error instead.
pub(crate) fn take_lost_answer(shared: &mut Shared) -> Option<Response> {
    if shared.lost_answers.is_empty() {
        return None;
    }
    let status = shared.lost_answers.remove(0);
    Some(error(
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        "api_error",
        "The stand-in did the work and was told to lose the answer.",
        None,
        None,
    ))
}
