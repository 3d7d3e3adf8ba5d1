//! Whether an event is selling: its on-sale window, and what staff did.

use serde::Serialize;
use time::OffsetDateTime;
use time::macros::format_description;

use crate::error::{AppError, Conflict};

/// An event's sale state at one moment, as the database computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SaleStatus {
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
            "on_sale" => SaleStatus::OnSale,
            "not_yet" => SaleStatus::NotYet,
            "closed" => SaleStatus::Closed,
            "started" => SaleStatus::Started,
            _ => SaleStatus::Cancelled,
        }
    }

    /// The refusal for a hold or purchase attempted in this state.
    pub fn refuse(
        self,
        on_sale_at: Option<OffsetDateTime>,
        time_zone: &str,
    ) -> Result<(), AppError> {
        match self {
            SaleStatus::OnSale => Ok(()),
            status => Err(AppError::Conflict(Conflict::NotSelling {
                status,
                on_sale_at,
                time_zone: time_zone.to_string(),
            })),
        }
    }
}

pub fn display_time(at: OffsetDateTime) -> String {
    at.format(format_description!(
        "[weekday repr:short] [day padding:none] [month repr:short] [year], [hour]:[minute] UTC"
    ))
    .unwrap_or_else(|_| at.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn only_an_event_on_sale_lets_buyers_hold() {
        assert!(SaleStatus::OnSale.refuse(None, "UTC").is_ok());
        let at = time::macros::datetime!(2026-12-01 10:00 UTC);
        for (status, code) in [
            (SaleStatus::NotYet, ErrorCode::NotOnSaleYet),
            (SaleStatus::Closed, ErrorCode::SalesClosed),
            (SaleStatus::Started, ErrorCode::EventStarted),
            (SaleStatus::Cancelled, ErrorCode::EventCancelled),
        ] {
            match status.refuse(Some(at), "UTC") {
                Err(AppError::Conflict(conflict)) => {
                    assert_eq!(conflict.code(), code);
                    assert_eq!(
                        conflict,
                        Conflict::NotSelling {
                            status,
                            on_sale_at: Some(at),
                            time_zone: "UTC".into(),
                        }
                    );
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
