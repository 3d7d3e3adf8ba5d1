//! The box office's room: sign-in, the console, venues, the door, orders,
//! walk-up sales, mail and webhooks; and the staff JSON API (`seats_api`,
//! `orders_api`, the door's admissions), routed with the API document.

pub mod accessible;
pub mod accounts;
pub mod bulk_seats;
pub mod console;
pub mod door;
pub mod door_offline;
pub mod event_settings;
pub mod mail;
pub mod offer;
pub mod orders;
pub mod orders_api;
pub mod payments;
pub mod payments_api;
pub mod price_types_api;
pub mod promo_codes_api;
pub mod publishing;
pub mod reports;
pub mod reports_api;
pub mod seasons;
pub mod seasons_api;
pub mod seats_api;
pub mod sign_in;
pub mod venue_move;
pub mod venue_preview;
pub mod venues;
pub mod venues_api;
pub mod waitlist;
pub mod walk_up;
pub mod webhooks;

use axum::Router;

use crate::web::state::AppState;

pub use sign_in::login_redirect;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(sign_in::router())
        .merge(accessible::router())
        .merge(accounts::router())
        .merge(console::router())
        .merge(publishing::router())
        .merge(seasons::router())
        .merge(bulk_seats::router())
        .merge(event_settings::router())
        .merge(venues::router())
        .merge(venue_move::router())
        .merge(reports::router())
        .merge(offer::router())
        .merge(door::router())
        .merge(orders::router())
        .merge(payments::router())
        .merge(walk_up::router())
        .merge(waitlist::router())
        .merge(mail::router())
        .merge(webhooks::router())
}
