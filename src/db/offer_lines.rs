//! The lines an offer priced, as the statements that write them take
//! them: the seats' as arrays (`price_types::SELL_SEATS_PRICED`, the
//! checkout's reservation, the counter's sale), and a line per GA place.

use super::GenericClient;
use crate::domain::ids::{OrderId, SeatId};
use crate::domain::price_type::{Place, PricedLine};
use crate::error::AppResult;

/// The lines as `SELL_SEATS_PRICED`'s arrays.
pub(in crate::db) struct LineArrays {
    pub seats: Vec<SeatId>,
    pub cents: Vec<i32>,
    pub types: Vec<Option<i64>>,
    pub discounts: Vec<i32>,
}

/// The seats' lines (GA places' are written by [`write_ga_lines`]).
pub(in crate::db) fn line_arrays(lines: &[PricedLine]) -> LineArrays {
    let mut arrays = LineArrays {
        seats: Vec::with_capacity(lines.len()),
        cents: Vec::with_capacity(lines.len()),
        types: Vec::with_capacity(lines.len()),
        discounts: Vec::with_capacity(lines.len()),
    };
    for line in lines {
        if let Place::Seat(seat) = line.place {
            arrays.seats.push(seat);
            arrays.cents.push(line.price_cents);
            arrays.types.push(line.price_type_id);
            arrays.discounts.push(line.discount_cents);
        }
    }
    arrays
}

/// Writes a line per GA place the offer priced, for the order's tickets
/// (`tickets::ISSUE`) and, while it waits for its money, its receipt and
/// its Stripe session. Nothing when the lines have no GA place.
pub(in crate::db) const WRITE_GA_LINES: &str =
    "INSERT INTO order_ga_lines (order_id, area_id, price_cents, price_type_id, discount_cents)
     SELECT $1, line.area_id, line.price_cents, line.price_type_id, line.discount_cents
       FROM unnest($2::bigint[], $3::int[], $4::bigint[], $5::int[])
            AS line(area_id, price_cents, price_type_id, discount_cents)";

pub(in crate::db) async fn write_ga_lines(
    tx: &impl GenericClient,
    order_id: OrderId,
    lines: &[PricedLine],
) -> AppResult<()> {
    let mut areas: Vec<i64> = Vec::new();
    let mut cents: Vec<i32> = Vec::new();
    let mut types: Vec<Option<i64>> = Vec::new();
    let mut discounts: Vec<i32> = Vec::new();
    for line in lines {
        if let Place::Ga(area, _) = line.place {
            areas.push(area.0);
            cents.push(line.price_cents);
            types.push(line.price_type_id);
            discounts.push(line.discount_cents);
        }
    }
    if areas.is_empty() {
        return Ok(());
    }
    let statement = tx.prepare_cached(WRITE_GA_LINES).await?;
    tx.execute(&statement, &[&order_id, &areas, &cents, &types, &discounts])
        .await?;
    Ok(())
}
