//! Pure types and rules: no I/O, unit-tested here.

pub mod accessible;
pub mod api_key;
pub mod best_available;
pub mod door;
pub mod email;
pub mod geometry;
pub mod hold;
pub mod ids;
pub mod lang;
pub mod layout;
pub mod locale;
pub mod money;
pub mod password;
pub mod payment;
pub mod price_type;
pub mod promo;
pub mod refusal;
pub mod role;
pub mod rules;
pub mod sale;
pub mod seat;
pub mod signed_link;
pub mod text;
pub mod ticket;
pub mod venue;
pub mod webhook;
