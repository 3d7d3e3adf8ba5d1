//! Promo codes' statements: staff making and listing them, and a purchase
//! redeeming one in its own transaction, its use counted by a guarded
//! update judged by the rows it touched (the `promo_code_within_uses`
//! CHECK is the backstop); a full refund gives the use back.

use serde::Serialize;
use time::OffsetDateTime;

use super::{GenericClient, Pool, audit, retrying};
use crate::domain::ids::{Actor, BuyerId, EventId, HoldId, OrderId};
use crate::domain::price_type::{OnSale, PricedLine};
use crate::domain::promo::{self, Discount, PromoSpec, match_key};
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

/// A code as staff read it back.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PromoCodeView {
    pub code: String,
    pub percent_off: Option<i32>,
    pub amount_off_cents: Option<i32>,
    pub max_uses: Option<i32>,
    /// Orders that used it (a fully refunded one gives its use back).
    pub uses: i32,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub valid_from: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub valid_until: Option<OffsetDateTime>,
    pub price_types: Option<Vec<String>>,
    /// The hidden price type it unlocks for its buyers.
    pub unlocks: Option<String>,
    /// Paused by staff: buyers can't use it until it is resumed.
    pub paused: bool,
}

// A code without a limit isn't counted by purchases (its row would be a
// hot spot every buyer with it waits on): its uses are its orders that
// still have a valid ticket, read when staff look.
const VIEW_COLUMNS: &str = "code, percent_off, amount_off_cents, max_uses, \
     CASE WHEN max_uses IS NOT NULL THEN uses \
          ELSE (SELECT count(*)::int FROM orders o \
                 WHERE o.promo_code_id = promo_codes.id \
                   AND EXISTS (SELECT 1 FROM tickets t \
                                WHERE t.order_id = o.id AND t.voided_at IS NULL)) END AS uses, \
     valid_from, valid_until, price_types, unlocks, paused";

fn view(row: &tokio_postgres::Row) -> PromoCodeView {
    PromoCodeView {
        code: row.get("code"),
        percent_off: row.get("percent_off"),
        amount_off_cents: row.get("amount_off_cents"),
        max_uses: row.get("max_uses"),
        uses: row.get("uses"),
        valid_from: row.get("valid_from"),
        valid_until: row.get("valid_until"),
        price_types: row.get("price_types"),
        unlocks: row.get("unlocks"),
        paused: row.get("paused"),
    }
}

/// Makes a code for the event (audited): `409 promo_code_exists` if it has
/// one spelled the same, whatever the case.
pub async fn create(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    spec: &PromoSpec,
) -> AppResult<PromoCodeView> {
    promo::check(spec)?;
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            super::events::lock_for_closing(tx, event_id).await?;
            let known: Vec<(String, bool)> = tx
                .query(
                    "SELECT code, hidden FROM price_types WHERE event_id = $1",
                    &[&event_id],
                )
                .await?
                .iter()
                .map(|row| (row.get(0), row.get(1)))
                .collect();
            let is_known = |code: &String| known.iter().any(|(known, _)| known == code);
            if let Some(named) = &spec.price_types
                && let Some(unknown) = named.iter().find(|code| !is_known(code))
            {
                return Err(AppError::Invalid(Invalid::UnknownPriceType(unknown.clone())));
            }
            if let Some(unlocks) = &spec.unlocks
                && !known.iter().any(|(code, hidden)| code == unlocks && *hidden)
            {
                return Err(AppError::Invalid(Invalid::PromoCode(format!(
                    "unlocks names a price type of this event whose visibility is \"code\", \
                     and {unlocks:?} is none"
                ))));
            }
            let (percent, amount) = match spec.discount {
                Discount::Percent(p) => (Some(p), None),
                Discount::Amount(a) => (None, Some(a)),
            };
            let row = tx
                .query_opt(
                    &format!(
                        "INSERT INTO promo_codes (event_id, code, percent_off, amount_off_cents, max_uses,
                                                  valid_from, valid_until, price_types, unlocks)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                         ON CONFLICT (event_id, lower(code)) DO NOTHING
                         RETURNING {VIEW_COLUMNS}"
                    ),
                    &[
                        &event_id,
                        &spec.code,
                        &percent,
                        &amount,
                        &spec.max_uses,
                        &spec.valid_from,
                        &spec.valid_until,
                        &spec.price_types,
                        &spec.unlocks,
                    ],
                )
                .await?
                .ok_or_else(|| AppError::Conflict(Conflict::PromoCodeExists(spec.code.clone())))?;
            audit::record(
                tx,
                audit::Entry {
                    actor: Some(actor),
                    action: "create_promo_code",
                    event_id: Some(event_id),
                    hold_id: None,
                    order_id: None,
                    seat_ids: &[],
                    detail: spec.code.clone(),
                },
            )
            .await?;
            Ok(view(&row))
        })
    })
    .await
}

/// The event's codes, newest first, with their uses.
pub async fn for_event(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<PromoCodeView>> {
    let rows = client
        .query(
            &format!(
                "SELECT {VIEW_COLUMNS} FROM promo_codes WHERE event_id = $1 ORDER BY created_at DESC, id DESC"
            ),
            &[&event_id],
        )
        .await?;
    Ok(rows.iter().map(view).collect())
}

/// Pauses or resumes a code (audited); its uses stay as they are.
pub async fn set_paused(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    code: &str,
    paused: bool,
) -> AppResult<PromoCodeView> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            let row = tx
                .query_opt(
                    &format!(
                        "UPDATE promo_codes SET paused = $3
                          WHERE event_id = $1 AND lower(code COLLATE \"C\") = $2
                      RETURNING {VIEW_COLUMNS}"
                    ),
                    &[&event_id, &match_key(code), &paused],
                )
                .await?
                .ok_or(AppError::NotFound(Missing::PromoCode))?;
            let shown = view(&row);
            audit::record(
                tx,
                audit::Entry {
                    actor: Some(actor),
                    action: if paused {
                        "pause_promo_code"
                    } else {
                        "resume_promo_code"
                    },
                    event_id: Some(event_id),
                    hold_id: None,
                    order_id: None,
                    seat_ids: &[],
                    detail: shown.code.clone(),
                },
            )
            .await?;
            Ok(shown)
        })
    })
    .await
}

/// A code a purchase names, found and judged usable now (its uses are
/// counted by [`redeem`]).
pub(super) struct Found {
    id: i64,
    /// It has a `max_uses`: the purchase counts its use.
    limited: bool,
    discount: Discount,
    only: Option<Vec<String>>,
    /// The hidden type it lets the buyer choose.
    pub unlocks: Option<String>,
}

/// Finds the code the buyer entered: unknown is `promo_code_unknown`;
/// outside its window, or paused by staff, `promo_code_expired`.
pub(super) async fn find_usable(
    tx: &impl GenericClient,
    event_id: EventId,
    code: &str,
) -> AppResult<Found> {
    let statement = tx
        .prepare_cached(
            "SELECT id, percent_off, amount_off_cents, price_types, unlocks,
                    max_uses IS NOT NULL AS limited,
                    NOT paused AND (valid_from IS NULL OR valid_from <= now())
                      AND (valid_until IS NULL OR now() < valid_until) AS valid_now
               FROM promo_codes WHERE event_id = $1 AND lower(code COLLATE \"C\") = $2",
        )
        .await?;
    let row = tx
        .query_opt(&statement, &[&event_id, &match_key(code)])
        .await?
        .ok_or(AppError::Invalid(Invalid::PromoCodeUnknown))?;
    if !row.get::<_, bool>("valid_now") {
        return Err(AppError::Invalid(Invalid::PromoCodeExpired));
    }
    Ok(Found {
        id: row.get("id"),
        limited: row.get("limited"),
        discount: promo::discount(
            row.get::<_, Option<i32>>("percent_off").map(i64::from),
            row.get::<_, Option<i32>>("amount_off_cents").map(i64::from),
        )?,
        only: row.get("price_types"),
        unlocks: row.get("unlocks"),
    })
}

/// Applies the code to the buyer's live hold (None takes it off): refused
/// as a purchase would refuse it (unknown, paused or out of its window);
/// whether it applies to the tickets is judged when they are bought.
pub async fn apply_to_hold(
    pool: &Pool,
    event_id: EventId,
    hold_id: HoldId,
    buyer_id: BuyerId,
    code: Option<&str>,
) -> AppResult<()> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            let promo_code_id = match code {
                Some(code) => Some(find_usable(tx, event_id, code).await?.id),
                None => None,
            };
            let applied = tx
                .execute(
                    "UPDATE holds SET promo_code_id = $3
                      WHERE id = $1 AND buyer_id = $2 AND state = 'OPEN' AND expires_at > now()",
                    &[&hold_id, &buyer_id, &promo_code_id],
                )
                .await?;
            match applied {
                0 => Err(AppError::HoldExpired),
                _ => Ok(()),
            }
        })
    })
    .await
}

/// The code applied to a hold, as the hold panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedCode {
    pub code: String,
    pub discount: Discount,
    /// The types it applies to (None: every ticket).
    pub price_types: Option<Vec<String>>,
    pub unlocks: Option<String>,
}

impl AppliedCode {
    /// Whether it takes its discount off a ticket of type `kind`.
    pub fn applies_to(&self, kind: &str) -> bool {
        self.price_types
            .as_ref()
            .is_none_or(|types| types.iter().any(|t| t == kind))
    }

    pub(super) fn from_row(row: &tokio_postgres::Row) -> AppResult<Option<AppliedCode>> {
        let Some(code) = row.get::<_, Option<String>>("applied_code") else {
            return Ok(None);
        };
        Ok(Some(AppliedCode {
            code,
            discount: promo::discount(
                row.get::<_, Option<i32>>("applied_percent").map(i64::from),
                row.get::<_, Option<i32>>("applied_amount").map(i64::from),
            )?,
            price_types: row.get("applied_types"),
            unlocks: row.get("applied_unlocks"),
        }))
    }
}

/// The code as a sale would use it now (the counter's review shows its
/// discount): refused as a purchase would refuse it.
pub async fn preview(
    client: &impl GenericClient,
    event_id: EventId,
    code: &str,
) -> AppResult<AppliedCode> {
    let statement = client
        .prepare_cached(
            "SELECT code AS applied_code, percent_off AS applied_percent,
                    amount_off_cents AS applied_amount, price_types AS applied_types,
                    unlocks AS applied_unlocks,
                    NOT paused AND (valid_from IS NULL OR valid_from <= now())
                      AND (valid_until IS NULL OR now() < valid_until) AS valid_now
               FROM promo_codes WHERE event_id = $1 AND lower(code COLLATE \"C\") = $2",
        )
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id, &match_key(code)])
        .await?
        .ok_or(AppError::Invalid(Invalid::PromoCodeUnknown))?;
    if !row.get::<_, bool>("valid_now") {
        return Err(AppError::Invalid(Invalid::PromoCodeExpired));
    }
    AppliedCode::from_row(&row)?.ok_or(AppError::Invalid(Invalid::PromoCodeUnknown))
}

/// A code redeemed by a purchase.
pub(super) struct Redeemed {
    pub promo_code_id: i64,
}

/// Redeems the code found for the lines (taking its discount off those it
/// applies to) and counts the use, in the purchase's transaction: applying
/// to none of the lines, or used up, it refuses the whole purchase, and the
/// transaction rolls back with the hold as it was.
pub(super) async fn redeem(
    tx: &impl GenericClient,
    found: &Found,
    lines: &mut [PricedLine],
    types: &[OnSale],
) -> AppResult<Redeemed> {
    let (id, discount, only) = (found.id, found.discount, &found.only);
    let type_code = |line: &PricedLine| {
        line.price_type_id
            .and_then(|id| types.iter().find(|t| t.id == id))
            .map(|t| t.code.as_str())
    };
    promo::apply(lines, discount, |line| match only {
        None => true,
        Some(codes) => type_code(line).is_some_and(|code| codes.iter().any(|c| c == code)),
    })?;
    if !found.limited {
        return Ok(Redeemed { promo_code_id: id });
    }
    let counted = tx
        .execute(
            "UPDATE promo_codes SET uses = uses + 1
              WHERE id = $1 AND uses < max_uses",
            &[&id],
        )
        .await?;
    if counted == 0 {
        return Err(AppError::Conflict(Conflict::PromoCodeUsedUp));
    }
    Ok(Redeemed { promo_code_id: id })
}

/// Gives the order's code its use back, once every ticket of the order is
/// refunded (a full refund).
pub(super) async fn give_back_if_refunded(
    tx: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<()> {
    tx.execute(
        "UPDATE promo_codes p SET uses = p.uses - 1
           FROM orders o
          WHERE o.id = $1 AND p.id = o.promo_code_id AND p.uses > 0 AND p.max_uses IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = o.id AND t.voided_at IS NULL)",
        &[&order_id],
    )
    .await?;
    Ok(())
}
