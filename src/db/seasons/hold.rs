//! A season hold: one buyer's claim on places across the season's
//! events, held through one ordinary hold per night (`holds.season_hold_id`)
//! that all share its expiry. Reading, opening, closing and releasing it.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::db::holds::Holder;
use crate::db::{GenericClient, Pool};
use crate::domain::hold::HoldRules;
use crate::domain::ids::{Actor, BuyerId, EventId, HoldId, OrderId, SeasonId, SeatId};
use crate::error::{AppError, AppResult, Conflict, Missing};

/// A buyer's season hold as it now is.
#[derive(Debug, Clone)]
pub struct SeasonHold {
    pub id: HoldId,
    pub season_id: SeasonId,
    pub buyer_id: BuyerId,
    pub expires_at: OffsetDateTime,
    /// The events it holds places in, by id.
    pub nights: Vec<EventId>,
    /// Its places (their first-event seat ids), sorted.
    pub seat_ids: Vec<SeatId>,
    /// A renewal: the last season's order whose places it keeps.
    pub renewal_of: Option<OrderId>,
}

const SEASON_HOLD_COLUMNS: &str = "sh.id, sh.season_id, sh.buyer_id, sh.expires_at, sh.event_ids,
     sh.renewal_of,
     ARRAY(SELECT DISTINCT p.place_id FROM holds h
             JOIN seats s ON s.hold_id = h.id
             JOIN season_places p ON p.season_id = sh.season_id AND p.seat_id = s.id
            WHERE h.season_hold_id = sh.id ORDER BY p.place_id) AS places";

fn season_hold(row: &tokio_postgres::Row) -> SeasonHold {
    SeasonHold {
        id: row.get("id"),
        season_id: row.get("season_id"),
        buyer_id: row.get("buyer_id"),
        expires_at: row.get("expires_at"),
        nights: row.get("event_ids"),
        seat_ids: row.get("places"),
        renewal_of: row.get("renewal_of"),
    }
}

/// Closes the buyer's season hold if it has lapsed (and its nights), so
/// the one-open-hold index lets a new one in. Its seats are free already,
/// by their expiry.
pub(super) async fn close_lapsed(
    tx: &impl GenericClient,
    season_id: SeasonId,
    buyer_id: BuyerId,
) -> AppResult<()> {
    let statement = tx.prepare_cached(CLOSE_LAPSED).await?;
    tx.execute(&statement, &[&season_id, &buyer_id]).await?;
    Ok(())
}

pub(super) const CLOSE_LAPSED: &str = "WITH lapsed AS (
         UPDATE season_holds SET state = 'EXPIRED', closed_at = now()
          WHERE season_id = $1 AND buyer_id = $2 AND state = 'OPEN'
            AND expires_at <= now()
      RETURNING id
     )
     UPDATE holds SET state = 'EXPIRED', closed_at = now()
      WHERE season_hold_id IN (SELECT id FROM lapsed) AND state = 'OPEN'";

pub(super) static LOCK_OPEN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT {SEASON_HOLD_COLUMNS} FROM season_holds sh
          WHERE sh.season_id = $1 AND sh.buyer_id = $2 AND sh.state = 'OPEN'
            AND sh.expires_at > now()
            FOR UPDATE OF sh"
    )
});

pub(super) async fn lock_open(
    tx: &impl GenericClient,
    season_id: SeasonId,
    buyer_id: BuyerId,
) -> AppResult<Option<SeasonHold>> {
    let statement = tx.prepare_cached(&LOCK_OPEN).await?;
    let row = tx.query_opt(&statement, &[&season_id, &buyer_id]).await?;
    Ok(row.as_ref().map(season_hold))
}

/// Opens a season hold with one hold per night, all expiring together.
/// The first night's carries the client address (or key), so the season
/// counts once against the cap on live holds.
pub(super) async fn open_new(
    tx: &impl GenericClient,
    season_id: SeasonId,
    holder: &Holder,
    nights: &[EventId],
    rules: HoldRules,
    renewal: Option<(OrderId, OffsetDateTime)>,
) -> AppResult<SeasonHold> {
    let statement = tx
        .prepare_cached(
            "WITH sh AS (
                 INSERT INTO season_holds (id, season_id, buyer_id, event_ids, expires_at,
                                           client_ip, renewal_of)
                 VALUES ($1, $2, $3, $4, coalesce($8, now() + make_interval(secs => $5)), $6, $9)
                 ON CONFLICT (season_id, buyer_id) WHERE state = 'OPEN' DO NOTHING
                 RETURNING *
             ), night_holds AS (
                 INSERT INTO holds (id, event_id, buyer_id, expires_at, season_hold_id,
                                    client_ip, api_key_id)
                 SELECT gen_random_uuid(), u.event_id, sh.id, sh.expires_at, sh.id,
                        CASE WHEN u.n = 1 THEN $6::inet END,
                        CASE WHEN u.n = 1 THEN $7::bigint END
                   FROM sh CROSS JOIN unnest(sh.event_ids) WITH ORDINALITY AS u(event_id, n)
             )
             SELECT sh.id, sh.season_id, sh.buyer_id, sh.expires_at, sh.event_ids,
                    sh.renewal_of, '{}'::bigint[] AS places
               FROM sh",
        )
        .await?;
    let row = tx
        .query_opt(
            &statement,
            &[
                &HoldId(Uuid::new_v4()),
                &season_id,
                &holder.buyer_id,
                &nights,
                &rules.ttl.as_secs_f64(),
                &holder.client_ip,
                &holder.api_key,
                &renewal.map(|(_, until)| until),
                &renewal.map(|(order, _)| order),
            ],
        )
        .await?;
    match row {
        Some(row) => Ok(season_hold(&row)),
        // The buyer's other request opened one first (the insert waited
        // for it to commit): lock that one.
        None => lock_open(tx, season_id, holder.buyer_id)
            .await?
            .ok_or(AppError::Conflict(Conflict::HoldReleased)),
    }
}

/// The hold after a claim took `claimed` (every place asked for: a claim
/// short of any refuses), held to the seat limit.
pub(super) fn finish(
    mut hold: SeasonHold,
    claimed: &[SeatId],
    rules: HoldRules,
) -> AppResult<SeasonHold> {
    hold.seat_ids.extend_from_slice(claimed);
    hold.seat_ids.sort_unstable();
    hold.seat_ids.dedup();
    if hold.seat_ids.len() > rules.max_seats as usize {
        return Err(AppError::HoldLimit {
            max: rules.max_seats,
        });
    }
    Ok(hold)
}

/// The season hold, in whatever state (locked, if asked).
pub(super) async fn lock_hold(
    client: &impl GenericClient,
    hold_id: HoldId,
    for_update: bool,
) -> AppResult<Option<SeasonHold>> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {SEASON_HOLD_COLUMNS} FROM season_holds sh WHERE sh.id = $1 {}",
            if for_update { "FOR UPDATE OF sh" } else { "" }
        ))
        .await?;
    let row = client.query_opt(&statement, &[&hold_id]).await?;
    Ok(row.as_ref().map(season_hold))
}

/// Puts one place of the season hold back on sale, in every night.
pub(super) async fn release_place_in(
    tx: &impl GenericClient,
    hold: &SeasonHold,
    place: SeatId,
) -> AppResult<u64> {
    let statement = tx
        .prepare_cached(
            "UPDATE seats s SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL,
                    changed_xid = pg_current_xact_id()
               FROM holds h, season_places p
              WHERE h.season_hold_id = $1 AND s.hold_id = h.id
                AND p.season_id = $2 AND p.place_id = $3 AND p.seat_id = s.id",
        )
        .await?;
    Ok(tx
        .execute(&statement, &[&hold.id, &hold.season_id, &place])
        .await?)
}

/// The buyer gives one place of their live season hold back, in every
/// night at once. 404 if the place is not in their hold.
pub async fn release_place(
    pool: &Pool,
    season_id: SeasonId,
    buyer_id: BuyerId,
    place: SeatId,
) -> AppResult<()> {
    crate::db::retrying(|| {
        crate::db::in_transaction(pool, async |tx| {
            let hold = lock_open(tx, season_id, buyer_id)
                .await?
                .ok_or(AppError::NotFound(Missing::Hold))?;
            match release_place_in(tx, &hold, place).await? {
                0 => Err(AppError::NotFound(Missing::SeatInHold)),
                _ => Ok(()),
            }
        })
    })
    .await
}

/// A live season hold as staff see it.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct StaffSeasonHold {
    pub hold_id: HoldId,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
    /// Its places (first-event seat ids).
    pub seat_ids: Vec<SeatId>,
    pub event_ids: Vec<EventId>,
    /// A renewal: the order renewed, and its buyer.
    pub renewal_of: Option<OrderId>,
    pub buyer_name: Option<String>,
}

/// The season's live holds, soonest to lapse first.
pub async fn live_holds(
    client: &impl GenericClient,
    season_id: SeasonId,
) -> AppResult<Vec<StaffSeasonHold>> {
    let rows = client
        .query(
            &format!(
                "SELECT {SEASON_HOLD_COLUMNS}, o.buyer_name
                   FROM season_holds sh LEFT JOIN orders o ON o.id = sh.renewal_of
                  WHERE sh.season_id = $1 AND sh.state = 'OPEN' AND sh.expires_at > now()
                  ORDER BY sh.expires_at, sh.id"
            ),
            &[&season_id],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| {
            let hold = season_hold(row);
            StaffSeasonHold {
                hold_id: hold.id,
                expires_at: hold.expires_at,
                seat_ids: hold.seat_ids,
                event_ids: hold.nights,
                renewal_of: hold.renewal_of,
                buyer_name: row.get("buyer_name"),
            }
        })
        .collect())
}

/// The buyer's live season hold, if any.
pub async fn live_hold(
    client: &impl GenericClient,
    season_id: SeasonId,
    buyer_id: BuyerId,
) -> AppResult<Option<SeasonHold>> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {SEASON_HOLD_COLUMNS} FROM season_holds sh
              WHERE sh.season_id = $1 AND sh.buyer_id = $2 AND sh.state = 'OPEN'
                AND sh.expires_at > now()"
        ))
        .await?;
    let row = client
        .query_opt(&statement, &[&season_id, &buyer_id])
        .await?;
    Ok(row.as_ref().map(season_hold))
}

/// Puts every seat of the season hold back on sale, in every night.
pub(super) async fn release_seats(tx: &impl GenericClient, hold_id: HoldId) -> AppResult<u64> {
    let statement = tx
        .prepare_cached(
            "UPDATE seats s SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL,
                    changed_xid = pg_current_xact_id()
               FROM holds h
              WHERE h.season_hold_id = $1 AND s.hold_id = h.id",
        )
        .await?;
    Ok(tx.execute(&statement, &[&hold_id]).await?)
}

/// Releases the buyer's season hold: its places go back on sale in every
/// night at once. 404 if it is not theirs; 409 if already closed.
/// The buyer releases their season hold of `season_id` (a hold of
/// another season, by the path, is not found).
pub async fn release_hold(
    pool: &Pool,
    season_id: crate::domain::ids::SeasonId,
    hold_id: HoldId,
    buyer_id: BuyerId,
) -> AppResult<()> {
    release_whole(pool, hold_id, Some((season_id, buyer_id)), None).await
}

/// Staff release a season hold: its places go back on sale in every
/// night at once, and its nights are closed as released by staff.
pub async fn release_by_staff(pool: &Pool, hold_id: HoldId, actor: Actor) -> AppResult<()> {
    release_whole(pool, hold_id, None, Some(actor)).await
}

/// The season hold released in every night: its buyer's (when `buyer` is
/// given, it must be theirs, of that season), or by staff (`actor`,
/// recorded on its nights).
async fn release_whole(
    pool: &Pool,
    hold_id: HoldId,
    buyer: Option<(crate::domain::ids::SeasonId, BuyerId)>,
    actor: Option<Actor>,
) -> AppResult<()> {
    let (season_id, buyer_id) = buyer.unzip();
    crate::db::retrying(|| {
        crate::db::in_transaction(pool, async |tx| {
            let row = tx
                .query_opt(
                    "SELECT state FROM season_holds
                      WHERE id = $1 AND ($2::uuid IS NULL OR buyer_id = $2)
                        AND ($3::bigint IS NULL OR season_id = $3) FOR UPDATE",
                    &[&hold_id, &buyer_id, &season_id],
                )
                .await?
                .ok_or(AppError::NotFound(Missing::Hold))?;
            match row.get::<_, &str>(0) {
                "OPEN" => {}
                "PURCHASED" => return Err(AppError::Conflict(Conflict::AlreadyPurchased)),
                _ => return Err(AppError::Conflict(Conflict::HoldReleased)),
            }
            release_seats(tx, hold_id).await?;
            tx.execute(
                "WITH closed AS (
                     UPDATE season_holds SET state = 'RELEASED', closed_at = now()
                      WHERE id = $1 RETURNING id
                 )
                 UPDATE holds SET state = 'RELEASED', closed_at = now(),
                        released_by_staff = $2, released_by_key = $3
                  WHERE season_hold_id IN (SELECT id FROM closed) AND state IN ('OPEN', 'EXPIRED')",
                &[
                    &hold_id,
                    &actor.and_then(Actor::staff_id),
                    &actor.and_then(Actor::api_key_id),
                ],
            )
            .await?;
            Ok(())
        })
    })
    .await
}

/// Refuses staff's single-event tools on one night's hold of a season
/// hold: it is released (or moved) whole, from the Seasons page.
pub async fn refuse_season_night(client: &impl GenericClient, hold_id: HoldId) -> AppResult<()> {
    let row = client
        .query_opt(
            "SELECT season_hold_id IS NOT NULL FROM holds WHERE id = $1",
            &[&hold_id],
        )
        .await?;
    match row.map(|row| row.get::<_, bool>(0)) {
        Some(true) => Err(AppError::Conflict(Conflict::SeasonNight)),
        _ => Ok(()),
    }
}
