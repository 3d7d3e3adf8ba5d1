//! The offer at the counter: a walk-up sale that names price types or a
//! promo code is priced as a purchase is (each seat its type's price, each
//! quota and the code's uses counted in the sale's own transaction), then
//! sold with the lines it priced. One that names neither sells each seat
//! as its default type (`seats::sell_at_box_office`).

use super::{GenericClient, price_types, promo_codes};
use crate::domain::ids::{EventId, OrderId, SeatId};
use crate::domain::price_type::{self, PricedLine};
use crate::domain::ticket::Tender;
use crate::error::{AppError, AppResult, Invalid};

/// The sale's seat lines, priced, and the code it used.
pub(super) struct CounterPrices {
    pub lines: Vec<PricedLine>,
    pub promo_code_id: Option<i64>,
}

/// Prices the named seats by the types chosen (`types`; seats not named
/// take the default) and the code, counting quotas and the code's use. A
/// comp is sold at nothing, and takes no code.
pub(super) async fn price(
    tx: &impl GenericClient,
    event_id: EventId,
    seat_ids: &[SeatId],
    choices: &price_type::Choices,
    tender: &Tender,
) -> AppResult<CounterPrices> {
    let comp = matches!(tender, Tender::Comp { .. });
    if comp && choices.promo_code.is_some() {
        return Err(AppError::Invalid(Invalid::PromoCodeNotApplicable));
    }
    let (for_sale, found) = tokio::join!(price_types::for_counter(tx, event_id, seat_ids), async {
        match &choices.promo_code {
            Some(code) => promo_codes::find_usable(tx, event_id, code).await.map(Some),
            None => Ok(None),
        }
    });
    sent_together!(for_sale, found);
    let ((types, seats), found) = (for_sale?, found?);
    if types.is_empty()
        && let Some(code) = choices.types.values().next()
    {
        return Err(AppError::Invalid(Invalid::UnknownPriceType(code.clone())));
    }
    // A seat named no type whose tier no open public type prices sells at
    // its tier's price, as the counter always sold it.
    let (mut lines, promo_code_id) =
        price_types::price_and_count(tx, &seats, &types, &choices.types, found.as_ref()).await?;
    if comp {
        for line in &mut lines {
            line.price_cents = 0;
        }
    }
    Ok(CounterPrices {
        lines,
        promo_code_id,
    })
}

/// Sells the priced seats that are still free (or blocked) to the order,
/// returning those sold.
pub(super) async fn sell(
    tx: &impl GenericClient,
    event_id: EventId,
    order_id: OrderId,
    lines: &[PricedLine],
) -> AppResult<Vec<SeatId>> {
    let statement = tx
        .prepare_cached(price_types::SELL_AT_COUNTER_PRICED)
        .await?;
    let arrays = super::offer_lines::line_arrays(lines);
    let rows = tx
        .query(
            &statement,
            &[
                &event_id,
                &order_id,
                &arrays.seats,
                &arrays.cents,
                &arrays.types,
                &arrays.discounts,
            ],
        )
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}
