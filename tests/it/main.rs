//! Integration tests: the real router over HTTP against a real PostgreSQL,
//! one fresh database per test (see support.rs).

mod accessible;
mod after_sale;
mod api_keys;
mod architecture;
mod availability;
mod bad_input;
mod best_available;
mod budgets;
mod claims;
mod door_offline;
mod general_admission;
mod hostile;
mod languages;
mod lifecycle;
mod limits;
mod live;
mod load;
mod mail;
mod ops;
mod pages;
mod payments;
mod purchase;
mod races;
mod replica;
mod roles;
mod schema;
mod security;
mod sessions;
mod staff;
mod support;
mod venue_versions;
mod venues;
mod waitlist;
mod webhooks;
mod wire;
