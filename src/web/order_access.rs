//! Who may open an order's pages: the buyer of this session, or anyone
//! with the signed link from the e-mail while it is valid.

use serde::Deserialize;
use time::OffsetDateTime;

use crate::domain::ids::OrderId;
use crate::domain::signed_link::SignedAccess;
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::Viewer;
use crate::web::state::AppState;

#[derive(Deserialize, Default)]
pub(crate) struct OrderAccess {
    pub(crate) until: Option<i64>,
    pub(crate) sig: Option<String>,
    /// "returned" or "cancelled": back from the payment provider's page.
    pub(crate) payment: Option<String>,
}

impl OrderAccess {
    /// The signed part again, to put on links and forms of the page.
    pub(crate) fn query(&self) -> String {
        match (&self.until, &self.sig) {
            // A signature is hex; anything else is not repeated into links
            // (a newline would make a header that can't be sent).
            (Some(until), Some(sig))
                if !sig.is_empty() && sig.chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                format!("until={until}&sig={sig}")
            }
            _ => String::new(),
        }
    }

    /// [`OrderAccess::query`] with where the buyer came back from, for
    /// the page's own polling (which must show what the page showed).
    pub(crate) fn query_with_return(&self) -> String {
        let signed = self.query();
        match self.payment.as_deref() {
            Some(how @ ("returned" | "cancelled")) if signed.is_empty() => format!("payment={how}"),
            Some(how @ ("returned" | "cancelled")) => format!("{signed}&payment={how}"),
            _ => signed,
        }
    }
}

/// Who may see the order: anyone with a valid signed link (None: no
/// owner to check), else the buyer of this session; otherwise a 404, so
/// nothing says whether the order exists.
pub(crate) fn order_owner(
    state: &AppState,
    order_id: OrderId,
    access: &OrderAccess,
    viewer: &Viewer,
) -> AppResult<Option<crate::domain::ids::BuyerId>> {
    let signed = match (access.until, &access.sig) {
        (Some(until), Some(sig)) => state.links.key.verify(
            order_id,
            &SignedAccess {
                until,
                sig: sig.clone(),
            },
            OffsetDateTime::now_utc(),
        ),
        _ => false,
    };
    if signed {
        return Ok(None);
    }
    Ok(Some(
        viewer.buyer_id.ok_or(AppError::NotFound(Missing::Order))?,
    ))
}
