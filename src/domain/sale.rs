//! Whether an event is selling: its on-sale window, and what staff did.

use serde::Serialize;
use time::OffsetDateTime;
use time::macros::format_description;

use crate::error::{AppError, ErrorCode};

/// An event's sale state at one moment, as the database computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

    /// For people: None while on sale, else why nothing can be bought.
    pub fn notice(self, on_sale_at: Option<OffsetDateTime>) -> Option<String> {
        match self {
            SaleStatus::OnSale => None,
            SaleStatus::NotYet => Some(match on_sale_at {
                Some(at) => format!("On sale at {}.", display_time(at)),
                None => "Not on sale yet.".into(),
            }),
            SaleStatus::Closed => Some("Sales for this event have closed.".into()),
            SaleStatus::Started => {
                Some("This event has started; tickets are no longer sold.".into())
            }
            SaleStatus::Cancelled => Some(
                "This event is cancelled. Orders already placed are kept and will be refunded."
                    .into(),
            ),
        }
    }

    /// The refusal for a hold or purchase attempted in this state.
    pub fn refuse(self, on_sale_at: Option<OffsetDateTime>) -> Result<(), AppError> {
        let code = match self {
            SaleStatus::OnSale => return Ok(()),
            SaleStatus::NotYet => ErrorCode::NotOnSaleYet,
            SaleStatus::Closed => ErrorCode::SalesClosed,
            SaleStatus::Started => ErrorCode::EventStarted,
            SaleStatus::Cancelled => ErrorCode::EventCancelled,
        };
        Err(AppError::Conflict {
            code,
            message: self.notice(on_sale_at).unwrap_or_default(),
        })
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

    #[test]
    fn only_an_event_on_sale_lets_buyers_hold() {
        assert!(SaleStatus::OnSale.refuse(None).is_ok());
        let at = time::macros::datetime!(2026-12-01 10:00 UTC);
        match SaleStatus::NotYet.refuse(Some(at)) {
            Err(AppError::Conflict { code, message }) => {
                assert_eq!(code, ErrorCode::NotOnSaleYet);
                assert_eq!(message, "On sale at Tue 1 Dec 2026, 10:00 UTC.");
            }
            other => panic!("{other:?}"),
        }
        for (status, expected) in [
            (SaleStatus::Closed, ErrorCode::SalesClosed),
            (SaleStatus::Started, ErrorCode::EventStarted),
            (SaleStatus::Cancelled, ErrorCode::EventCancelled),
        ] {
            assert!(
                matches!(status.refuse(None), Err(AppError::Conflict { code, .. }) if code == expected)
            );
        }
    }
}
