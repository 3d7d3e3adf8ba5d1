//! A buyer's pick of seats (no GA in the cart) in one statement: the SQL
//! function `claim_seats_within_share` (migration V34, which wraps V29's
//! `claim_seats_for_buyer` and adds the house share) keeps every rule the
//! claim of [`super::claim`] keeps, in the same order, and answers with
//! the hold and its seats. One round trip, no transaction of the app's
//! own: the statement commits by itself, or fails and rolls back whole.
//! Its refusals come back as SQLSTATEs of class `SM` (nothing written) or,
//! for seats taken, as a row (the request counted in the same statement).

use time::OffsetDateTime;
use tokio_postgres::Row;
use uuid::Uuid;

use super::requests::{Holder, active_counters};
use super::row::hold_locale;
use crate::db::{GenericClient, Pool};
use crate::domain::hold::{GaHeld, Hold, HoldRules, HoldState, HoldSummary};
use crate::domain::ids::{EventId, HoldId, SeatId};
use crate::domain::sale::SaleStatus;
use crate::error::{AppError, AppResult, Conflict, Limit, Missing};

/// The pick of V29 with the client's share of the house checked after it
/// in the same statement (V34; a share of 0 checks nothing).
const PICK: &str = "SELECT * FROM claim_seats_within_share($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)";

/// What the statement answered: the hold with its seats (and how many
/// were taken back from lapsed holds), or a refusal already counted.
pub(super) enum Picked {
    Held(HoldSummary, u64),
    Refused(AppError),
}

/// One attempt (the caller retries deadlocks and counts a refusal that
/// wrote nothing).
pub(super) async fn pick_once(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    seat_ids: &[SeatId],
    rules: HoldRules,
) -> AppResult<Picked> {
    let client = pool.get().await?;
    pick_in(&client, event_id, holder, seat_ids, rules).await
}

async fn pick_in(
    client: &impl GenericClient,
    event_id: EventId,
    holder: Holder,
    seat_ids: &[SeatId],
    rules: HoldRules,
) -> AppResult<Picked> {
    let (keys, maxes) = match holder.request {
        Some(limits) => active_counters(&holder, limits),
        None => (Vec::new(), Vec::new()),
    };
    let clock = holder.request.and_then(|limits| limits.clock.frozen());
    let statement = client.prepare_cached(PICK).await?;
    let rows = client
        .query(
            &statement,
            &[
                &event_id,
                &holder.buyer_id,
                &seat_ids,
                &HoldId(Uuid::new_v4()),
                &rules.ttl.as_secs_f64(),
                &holder.client_ip,
                &holder.api_key,
                &as_sql_int(rules.max_holds_per_ip),
                &as_sql_int(rules.max_holds_per_key),
                &keys,
                &maxes,
                &clock,
                &as_sql_int(rules.max_seats),
                &as_sql_int(rules.share_seats),
            ],
        )
        .await
        .map_err(refusal)?;
    let Some(first) = rows.first() else {
        return Err(AppError::Internal(anyhow::anyhow!(
            "claim_seats_for_buyer answered no row"
        )));
    };
    match first.get::<_, &str>("outcome") {
        "held" => Ok(Picked::Held(
            summary(event_id, &rows, first),
            reclaimed(first),
        )),
        outcome => {
            let refused: Vec<SeatId> = first.get("refused");
            Ok(Picked::Refused(match outcome {
                "waitlist_first" => AppError::Conflict(Conflict::WaitlistFirst),
                _ => AppError::SeatsUnavailable { seat_ids: refused },
            }))
        }
    }
}

/// A limit as the SQL functions take it (`integer`).
pub(super) fn as_sql_int(limit: u32) -> i32 {
    i32::try_from(limit).unwrap_or(i32::MAX)
}

fn reclaimed(row: &Row) -> u64 {
    row.get::<_, i32>("reclaimed").max(0) as u64
}

fn summary(event_id: EventId, rows: &[Row], first: &Row) -> HoldSummary {
    let locale: Vec<String> = first.get("hold_locale");
    let (locale, payment) = hold_locale(&locale);
    let hold = Hold {
        id: first.get("hold_id"),
        event_id,
        buyer_id: first.get("holder"),
        state: HoldState::from_db(first.get("hold_state")),
        expires_at: first.get("hold_expires_at"),
        live: true,
        released_by_staff: first.get("hold_released_by_staff"),
        extended: first.get("hold_extended"),
        locale,
        payment,
    };
    let areas: Option<Vec<crate::domain::ids::AreaId>> = first.get("ga_area_ids");
    let quantities: Option<Vec<i32>> = first.get("ga_quantities");
    let ga = areas
        .unwrap_or_default()
        .into_iter()
        .zip(quantities.unwrap_or_default())
        .map(|(area_id, quantity)| GaHeld { area_id, quantity })
        .collect();
    let seats: Vec<_> = rows.iter().map(crate::db::seats::seat_from_row).collect();
    HoldSummary {
        hold_id: hold.id,
        expires_at: hold.expires_at,
        seat_ids: seats.iter().map(|seat| seat.id).collect(),
        hold,
        seats,
        ga,
    }
}

/// The answer for a refusal a V29 function raised (class `SM`: nothing
/// was written); any other failure as it came.
pub(super) fn refusal(err: tokio_postgres::Error) -> AppError {
    let Some(db) = err.as_db_error() else {
        return err.into();
    };
    let detail = db.detail().unwrap_or_default();
    let numbers = |at: usize| -> u64 {
        detail
            .split(',')
            .nth(at)
            .and_then(|n| n.trim().parse::<i64>().ok())
            .unwrap_or(1)
            .max(1) as u64
    };
    match db.code().code() {
        "SM429" => AppError::TooManyRequests {
            limit: Limit::HoldRequests,
            retry_after_secs: numbers(0),
        },
        "SM43I" => AppError::TooManyRequests {
            limit: Limit::HoldsFromNetwork {
                live: numbers(0) as i64,
            },
            retry_after_secs: numbers(1),
        },
        "SM43K" => AppError::TooManyRequests {
            limit: Limit::HoldsForKey {
                live: numbers(0) as i64,
            },
            retry_after_secs: numbers(1),
        },
        "SM43S" => AppError::TooManyRequests {
            limit: Limit::HouseShare {
                max_seats: detail.trim().parse().unwrap_or(0),
            },
            // Seats come back when the network's buyers buy, let go or
            // lapse: a minute is the soonest worth trying again.
            retry_after_secs: 60,
        },
        "SM404" => AppError::NotFound(Missing::Event),
        "SM4SE" => AppError::NotFound(Missing::Seats(
            detail
                .split(',')
                .filter_map(|id| id.trim().parse::<i64>().ok())
                .map(SeatId::from)
                .collect(),
        )),
        "SM4HL" => AppError::HoldLimit {
            max: detail.trim().parse().unwrap_or(0),
        },
        "SM409" => not_selling(detail),
        _ => err.into(),
    }
}

/// The event's sale state when it isn't on sale, from the function's
/// JSON detail: `{"sale", "on_sale_at_micros" (since the epoch), "time_zone"}`.
fn not_selling(detail: &str) -> AppError {
    #[derive(serde::Deserialize)]
    struct NotSelling {
        sale: String,
        on_sale_at_micros: Option<i64>,
        time_zone: String,
    }
    let Ok(found) = serde_json::from_str::<NotSelling>(detail) else {
        return AppError::Internal(anyhow::anyhow!("an unreadable sale state: {detail}"));
    };
    let on_sale_at = found.on_sale_at_micros.and_then(|micros| {
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1000).ok()
    });
    match SaleStatus::from_db(&found.sale).refuse(on_sale_at, &found.time_zone) {
        Err(conflict) => AppError::Conflict(conflict),
        Ok(()) => AppError::Internal(anyhow::anyhow!("refused while on sale: {detail}")),
    }
}
