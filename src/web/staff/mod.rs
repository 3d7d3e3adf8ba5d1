//! The box office's room: sign-in, the console, venues and the staff API.

pub mod api;
pub mod console;
pub mod door;
pub mod orders;
pub mod reports;
pub mod sign_in;
pub mod venues;

use axum::Router;

use crate::web::state::AppState;

pub use sign_in::login_redirect;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(sign_in::router())
        .merge(console::router())
        .merge(api::router())
        .merge(venues::router())
        .merge(reports::router())
        .merge(door::router())
        .merge(orders::router())
}
