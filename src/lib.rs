//! seatmap: a ticketing seat map where PostgreSQL alone decides who gets a seat.

pub mod app;
pub mod background;
pub mod cli;
pub mod config;
pub mod db;
pub mod domain;
pub mod error;
pub mod i18n;
pub mod mail;
pub mod observability;
pub mod payments;
pub mod server;
pub mod startup;
pub mod stripe;
pub mod ticket_files;
pub mod web;
pub mod webhooks;
pub mod words;
