//! The buyer's room: pages, actions, checkout, the live feed and the JSON API.

pub mod actions;
pub mod api;
pub mod checkout;
pub mod event;
pub mod live;
pub mod panel;
pub mod seat_list;
pub mod tickets;

use axum::Router;
use axum::routing::{get, post};

use self::actions::*;
use self::checkout::*;
use self::event::*;
use self::tickets::*;
use crate::web::state::AppState;

/// The buyer's routes (the JSON API and the live feed have their own).
pub fn pages_router() -> Router<AppState> {
    Router::new()
        .route("/", get(index))
        .route("/events/{event_id}", get(event_page))
        .route("/events/{event_id}/list", get(list_page))
        .route("/events/{event_id}/seats", post(seat_action))
        .route("/events/{event_id}/best", post(best_available))
        .route("/events/{event_id}/ga", post(ga_action))
        .route("/events/{event_id}/hold/release", post(release_all))
        .route("/events/{event_id}/hold/extend", post(extend_hold))
        .route("/events/{event_id}/purchase", post(purchase))
        .route("/orders/{order_id}", get(order_page))
        .route("/my/orders", get(my_orders))
        .route("/tickets/{code}", get(ticket_page))
}

pub fn router() -> Router<AppState> {
    Router::new().merge(pages_router()).merge(live::router())
}
