//! Static files (vendored htmx, css, the pages' ES modules), embedded in
//! release builds so the binary serves them with no CDN and no network.
//!
//! Each file is compressed once, on first use, and kept (see
//! `precompressed`). Pages link to a file by [`url`], which carries its
//! content hash: a request naming the current hash may be cached for a
//! year, since a changed file gets a new URL. Every answer has an ETag, so
//! anything else revalidates with a 304.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use axum::Router;
use axum::extract::{Path, Query};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use rust_embed::RustEmbed;

use crate::error::{AppError, Missing};
use crate::web::precompressed::{Effort, Prepared};
use crate::web::state::AppState;

#[derive(RustEmbed)]
#[folder = "static/"]
struct Assets;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/static/{*path}", get(asset))
        .route("/door-sw.js", get(door_service_worker))
}

/// The door's service worker, served from the root so that it may control
/// the door pages under `/staff/events/`. Never cached for long: a browser
/// checks it for updates on each visit anyway, and a stale one must not
/// outlive a fix.
async fn door_service_worker(headers: HeaderMap) -> Result<Response, AppError> {
    let path = "door-sw.js";
    let file = Assets::get(path).ok_or(AppError::NotFound(Missing::File))?;
    let prepared = prepared(path, file).await?;
    Ok(prepared.respond(&headers, "no-cache"))
}

/// A file's content hash, shortened: what [`url`] puts in `?v=`.
fn version(file: &rust_embed::EmbeddedFile) -> String {
    data_encoding::HEXLOWER.encode(&file.metadata.sha256_hash()[..8])
}

/// The URL a page links `path` (under `static/`) by: versioned by its
/// content, so it can be cached for good.
pub fn url(path: &str) -> String {
    match Assets::get(path) {
        Some(file) => format!("/static/{path}?v={}", version(&file)),
        None => format!("/static/{path}"),
    }
}

/// Files prepared (or being prepared), by path and content hash (debug
/// builds read `static/` from disk, so a file edited while the app runs is
/// a new one). Each is compressed once, by one task that keeps its result
/// whether or not the request that started it is still waiting: requests
/// can't run the same compression side by side, nor lose it by leaving.
type Cell = Arc<tokio::sync::OnceCell<Arc<Prepared>>>;
static PREPARED: LazyLock<Mutex<HashMap<(String, String), Cell>>> = LazyLock::new(Mutex::default);

async fn prepared(path: &str, file: rust_embed::EmbeddedFile) -> Result<Arc<Prepared>, AppError> {
    let version = version(&file);
    let cell = PREPARED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry((path.to_string(), version.clone()))
        .or_default()
        .clone();
    if let Some(ready) = cell.get() {
        return Ok(ready.clone());
    }
    let preparing = tokio::spawn(async move {
        cell.get_or_try_init(|| async move {
            let mime = file.metadata.mimetype().to_string();
            let body = axum::body::Bytes::from(file.data.into_owned());
            tokio::task::spawn_blocking(move || {
                Arc::new(Prepared::new(body, &mime, &version, Effort::Best))
            })
            .await
        })
        .await
        .cloned()
    });
    match preparing.await {
        Ok(Ok(prepared)) => Ok(prepared),
        Ok(Err(err)) => Err(AppError::Internal(err.into())),
        Err(err) => Err(AppError::Internal(err.into())),
    }
}

/// Compresses every static file in the background, so no visitor waits.
pub fn prepare_all() {
    tokio::spawn(async {
        for path in Assets::iter() {
            if let Some(file) = Assets::get(&path) {
                let _ = prepared(&path, file).await;
            }
        }
    });
}

#[derive(serde::Deserialize)]
struct Versioned {
    v: Option<String>,
}

async fn asset(
    Path(path): Path<String>,
    Query(query): Query<Versioned>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let file = Assets::get(&path).ok_or(AppError::NotFound(Missing::File))?;
    let version = version(&file);
    let script = file.metadata.mimetype() == "text/javascript";
    let prepared = prepared(&path, file).await?;
    Ok(prepared.respond(
        &headers,
        cache_control(query.v.as_deref() == Some(version.as_str()), script),
    ))
}

/// How long a file may be kept: for good under its current hash. Without
/// it, a script is checked each time (a 304 while unchanged): an ES module
/// imports its neighbours by their plain URLs (`./app/live.js`), so a
/// page's scripts must never mix two releases. Anything else briefly.
fn cache_control(current_version: bool, script: bool) -> &'static str {
    if current_version {
        "public, max-age=31536000, immutable"
    } else if script {
        "no-cache"
    } else {
        "public, max-age=300"
    }
}
