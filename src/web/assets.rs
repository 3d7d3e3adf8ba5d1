//! Static files (vendored htmx, css, the countdown script), embedded in
//! release builds so the binary serves them with no CDN and no network.

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::RustEmbed;

use crate::error::{AppError, Missing};
use crate::web::state::AppState;

#[derive(RustEmbed)]
#[folder = "static/"]
struct Assets;

pub fn router() -> Router<AppState> {
    Router::new().route("/static/{*path}", get(asset))
}

async fn asset(Path(path): Path<String>) -> Result<Response, AppError> {
    let file = Assets::get(&path).ok_or_else(|| AppError::NotFound(Missing::File))?;
    let mime = file.metadata.mimetype().to_string();
    let mut response = file.data.into_owned().into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&mime) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    Ok(response)
}
