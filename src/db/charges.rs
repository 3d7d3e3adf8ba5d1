//! An event's booking fee and tax: read for the hold panel and the
//! receipt, set by staff. What each ticket was charged is on the ticket
//! (`tickets::ISSUE` computes it when it issues them).

use super::promo_codes::AppliedCode;
use super::{GenericClient, Pool, audit, retrying};
use crate::domain::charges::{Charges, Tax};
use crate::domain::ids::{Actor, EventId, HoldId};
use crate::domain::payment::PaymentMode;
use crate::error::{AppError, AppResult, Missing};

const READ: &str = "SELECT booking_fee_cents, (tax_rate * 100)::integer AS tax_hundredths,
                           tax_included, fees_refundable, payment
                      FROM events WHERE id = $1";

fn from_row(row: &tokio_postgres::Row) -> Charges {
    Charges {
        booking_fee_cents: row.get("booking_fee_cents"),
        tax: row
            .get::<_, Option<i32>>("tax_hundredths")
            .map(|rate_hundredths| Tax {
                rate_hundredths,
                included: row.get("tax_included"),
            }),
        fees_refundable: row.get("fees_refundable"),
    }
}

/// The event's fee and tax now.
pub async fn for_event(client: &impl GenericClient, event_id: EventId) -> AppResult<Charges> {
    let statement = client.prepare_cached(READ).await?;
    let row = client
        .query_opt(&statement, &[&event_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    Ok(from_row(&row))
}

/// What the hold panel shows of the offer: the charges, whether to ask for
/// a promo code, and the code the buyer applied to the hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanelOffer {
    pub charges: Charges,
    pub has_codes: bool,
    pub applied: Option<AppliedCode>,
}

/// The event's charges, whether it has a code buyers may enter, and the
/// hold's applied code, in one statement.
pub async fn for_panel(
    client: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
) -> AppResult<PanelOffer> {
    let statement = client
        .prepare_cached(
            "SELECT e.booking_fee_cents, (e.tax_rate * 100)::integer AS tax_hundredths,
                    e.tax_included, e.fees_refundable,
                    EXISTS (SELECT 1 FROM promo_codes p WHERE p.event_id = e.id AND NOT p.paused)
                        AS has_codes,
                    pc.code AS applied_code, pc.percent_off AS applied_percent,
                    pc.amount_off_cents AS applied_amount, pc.price_types AS applied_types,
                    pc.unlocks AS applied_unlocks
               FROM events e
               LEFT JOIN holds h ON h.id = $2 AND h.event_id = e.id
               LEFT JOIN promo_codes pc ON pc.id = h.promo_code_id AND NOT pc.paused
              WHERE e.id = $1",
        )
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id, &hold_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    Ok(PanelOffer {
        charges: from_row(&row),
        has_codes: row.get("has_codes"),
        applied: AppliedCode::from_row(&row)?,
    })
}

/// What staff change; a field left out stays as it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChargesChange {
    pub booking_fee_cents: Option<i32>,
    /// `Some(None)` removes the tax line.
    pub tax: Option<Option<Tax>>,
    pub fees_refundable: Option<bool>,
}

/// Changes the event's fee and tax, and its payment when `payment` says
/// (mode and box-office window), in one transaction: either both happen or
/// neither. Orders already sold keep what they were charged (it is on
/// their tickets), as do orders waiting for their payment (it was fixed
/// at checkout); holds are bought at the new charges.
pub async fn set(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    change: ChargesChange,
    payment: Option<(PaymentMode, Option<i32>)>,
) -> AppResult<Charges> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            // The event's lock first, as every change of its sale takes it.
            super::events::lock_for_closing(tx, event_id).await?;
            let after = set_in(tx, actor, event_id, change).await?;
            if let Some((mode, window)) = payment {
                super::payments::set_event_payment_in(tx, actor, event_id, mode, window).await?;
            }
            Ok(after)
        })
    })
    .await
}

async fn set_in(
    tx: &impl GenericClient,
    actor: Actor,
    event_id: EventId,
    change: ChargesChange,
) -> AppResult<Charges> {
    let row = tx
        .query_opt(READ, &[&event_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    let before = from_row(&row);
    let after = Charges {
        booking_fee_cents: change.booking_fee_cents.unwrap_or(before.booking_fee_cents),
        tax: change.tax.unwrap_or(before.tax),
        fees_refundable: change.fees_refundable.unwrap_or(before.fees_refundable),
    };
    if after == before {
        return Ok(after);
    }
    tx.execute(
        "UPDATE events
            SET booking_fee_cents = $2, tax_rate = $3::integer / 100.0,
                tax_included = $4, fees_refundable = $5
          WHERE id = $1",
        &[
            &event_id,
            &after.booking_fee_cents,
            &after.tax.map(|tax| tax.rate_hundredths),
            &after.tax.is_none_or(|tax| tax.included),
            &after.fees_refundable,
        ],
    )
    .await?;
    audit::record(
        tx,
        audit::Entry {
            actor: Some(actor),
            action: "set_charges",
            event_id: Some(event_id),
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: format!(
                "booking fee {} → {}, tax {} → {}, fees refundable {}",
                before.booking_fee_cents,
                after.booking_fee_cents,
                describe(before.tax),
                describe(after.tax),
                after.fees_refundable
            ),
        },
    )
    .await?;
    Ok(after)
}

fn describe(tax: Option<Tax>) -> String {
    match tax {
        None => "none".into(),
        Some(tax) if tax.included => format!("{} % included", tax.rate_text()),
        Some(tax) => format!("{} % added", tax.rate_text()),
    }
}
