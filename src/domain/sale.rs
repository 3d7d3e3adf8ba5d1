//! Whether an event is selling: its on-sale window, and what staff did.

use serde::Serialize;

/// An event's sale state at one moment, as the database computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SaleStatus {
    /// Not published yet: staff only (buyers are told it doesn't exist).
    Draft,
    OnSale,
    /// Before the on-sale time.
    NotYet,
    /// Staff closed sales.
    Closed,
    /// The event has started: nothing more can be held or bought.
    Started,
    Cancelled,
}

impl SaleStatus {
    pub fn from_db(value: &str) -> SaleStatus {
        match value {
            "draft" => SaleStatus::Draft,
            "on_sale" => SaleStatus::OnSale,
            "not_yet" => SaleStatus::NotYet,
            "closed" => SaleStatus::Closed,
            "started" => SaleStatus::Started,
            _ => SaleStatus::Cancelled,
        }
    }
}
