//! The buyer's room: the event pages (map, list, hold panel), the actions
//! on them, checkout, tickets and "My orders", the live feed, and the
//! buyers' JSON API.

pub mod actions;
pub mod api;
pub mod best;
pub mod checkout;
pub mod codes;
pub mod draft;
pub mod event;
pub mod live;
pub mod panel;
pub mod recipient;
pub mod seasons;
pub mod seasons_api;
pub mod seat_list;
pub mod ticket_files;
pub mod ticket_page;
pub mod tickets;
pub mod transfer;
pub mod waitlist;

use crate::web::state::AppState;
use axum::Router;
use axum::routing::{get, post};

/// The buyer's pages and their forms (the JSON API is routed with its
/// document, in `web::openapi`; the live feed has its own router).
pub fn pages_router() -> Router<AppState> {
    Router::new()
        .route("/", get(event::index))
        .route("/events/{event_id}", get(event::event_page))
        .route("/events/{event_id}/list", get(event::list_page))
        .route(
            "/events/{event_id}/queue",
            get(crate::web::queue::page::queue_page).post(crate::web::queue::page::join_form),
        )
        .route("/events/{event_id}/seats", post(actions::seat_action))
        .route("/events/{event_id}/best", post(best::best_available))
        .route(
            "/events/{event_id}/best/undo",
            post(best::undo_best_available),
        )
        .route("/events/{event_id}/ga", post(actions::ga_action))
        .route(
            "/events/{event_id}/hold/release",
            post(actions::release_all),
        )
        .route("/events/{event_id}/hold/extend", post(actions::extend_hold))
        .route("/events/{event_id}/hold/code", post(codes::apply_code))
        .route("/events/{event_id}/purchase", post(checkout::purchase))
        .route("/orders/{order_id}", get(tickets::order_page))
        .route("/orders/{order_id}/pay", post(crate::web::payments::pay))
        .route(
            "/orders/{order_id}/payment",
            get(crate::web::payments::payment_fragment),
        )
        .route("/my/orders", get(tickets::my_orders))
        .route("/events/{event_id}/waitlist", post(waitlist::join_form))
        .route("/waitlist/{entry_id}", get(waitlist::entry_page))
        .route("/waitlist/{entry_id}/offer", post(waitlist::take_offer))
        .route(
            "/waitlist/{entry_id}/confirm",
            get(waitlist::confirm_page).post(waitlist::confirm_form),
        )
        .route("/waitlist/{entry_id}/leave", post(waitlist::leave_form))
        .route("/waitlist/{entry_id}/rejoin", post(waitlist::rejoin_form))
        // "/tickets/{code}.pdf" and ".pkpass" too: a route's parameter
        // can't have a suffix, so the page's handler sends them on.
        .route("/tickets/{code}", get(ticket_page::ticket_page))
        .route("/tickets/{code}/transfer", post(transfer::transfer_form))
        .route(
            "/tickets/{code}/release-to-sale",
            post(seasons::release_to_sale_form),
        )
        .route("/seasons/{season_id}", get(seasons::season_page))
        .route("/seasons/{season_id}/seats", post(seasons::place_action))
        .route("/seasons/{season_id}/best", post(seasons::best_available))
        .route("/seasons/{season_id}/release", post(seasons::release_all))
        .route("/seasons/{season_id}/buy", post(seasons::buy))
        .route("/renewals/{hold_id}", get(seasons::renewal_page))
        .route("/renewals/{hold_id}/renew", post(seasons::renew))
        .route("/renewals/{hold_id}/give-up", post(seasons::give_up))
        .route(
            "/tickets/{code}/google-wallet",
            get(ticket_files::google_wallet),
        )
        .route(
            "/orders/{order_id}/tickets.pdf",
            get(ticket_files::order_pdf),
        )
}

pub fn router() -> Router<AppState> {
    Router::new().merge(pages_router()).merge(live::router())
}
