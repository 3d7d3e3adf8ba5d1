//! Renewal: each subscriber of last season finds their places held for
//! them in the new one until a deadline, and is mailed a signed link to
//! renew (pay) or give up. A renewal hold is an ordinary season hold whose
//! expiry is the deadline, so places not renewed go back on sale by
//! themselves, lazily, like any hold.

use time::OffsetDateTime;

use super::claim::{Locking, claim_in};
use super::hold::{SeasonHold, close_lapsed, lock_hold, open_new};
use super::season::Season;
use crate::db::holds::Holder;
use crate::db::{GenericClient, Pool, outbox};
use crate::domain::hold::HoldRules;
use crate::domain::ids::{BuyerId, HoldId, OrderId, SeasonId, SeatId};
use crate::error::{AppError, AppResult, Conflict, Missing};

/// What a renewal run did.
#[derive(Debug, Clone, Copy, serde::Serialize, utoipa::ToSchema)]
pub struct Renewals {
    /// Subscribers whose places are now held for them (and mailed).
    pub held: u64,
    /// Subscribers left out: their places are taken in the new season, or
    /// they already hold places in it.
    pub skipped: u64,
}

/// Holds each subscriber's places of `from` in `season` until `until`,
/// and queues their mail, in one transaction; a season is renewed once.
/// Places are matched by section, row and seat.
pub async fn renew(
    pool: &Pool,
    season: &Season,
    from: SeasonId,
    until: OffsetDateTime,
) -> AppResult<Renewals> {
    if season.choose_events.is_some() || season.id == from {
        return Err(AppError::Conflict(Conflict::RenewalNotPossible));
    }
    crate::db::in_transaction(pool, async |tx| {
        if tx
            .query_opt("SELECT 1 FROM seasons WHERE id = $1", &[&from])
            .await?
            .is_none()
        {
            return Err(AppError::NotFound(Missing::Season));
        }
        let marked = tx
            .execute(
                "UPDATE seasons SET renews_season_id = $2
                  WHERE id = $1 AND renews_season_id IS NULL",
                &[&season.id, &from],
            )
            .await?;
        if marked != 1 {
            return Err(AppError::Conflict(Conflict::RenewalNotPossible));
        }
        let nights = season.event_ids();
        super::claim::refuse_unless_selling(tx, season.id, &nights, true).await?;
        let subscribers = tx
            .query(SUBSCRIBERS, &[&from, &season.id, &season.first_event()])
            .await?;
        let mut made = Renewals {
            held: 0,
            skipped: 0,
        };
        for row in &subscribers {
            let order_id: OrderId = row.get("order_id");
            let places: Vec<SeatId> = row.get("places");
            let holder = Holder {
                buyer_id: row.get::<_, BuyerId>("buyer_id"),
                client_ip: None,
                api_key: None,
                request: None,
            };
            tx.batch_execute("SAVEPOINT renewal").await?;
            // A lapsed hold of theirs in the new season makes way.
            close_lapsed(tx, season.id, holder.buyer_id).await?;
            let hold = open_new(
                tx,
                season.id,
                &holder,
                &nights,
                renewal_rules(),
                Some((order_id, until)),
            )
            .await?;
            // A buyer who already holds places in the new season keeps that
            // hold, and is left out of the renewal.
            // Skipping locked seats: one transaction claims for every
            // subscriber, so it must never wait on a seat a buyer holds
            // while wanting one it has (no lock order spans subscribers).
            // A subscriber whose seat is being claimed right now is skipped.
            let short = match hold.renewal_of == Some(order_id) && !places.is_empty() {
                true => !claim_in(tx, season.id, &hold, &places, Locking::SkipLocked)
                    .await?
                    .is_empty(),
                false => true,
            };
            if short {
                tx.batch_execute("ROLLBACK TO SAVEPOINT renewal").await?;
                made.skipped += 1;
                continue;
            }
            outbox::queue_season_renewal(
                tx,
                order_id,
                season.id,
                row.get::<_, &str>("buyer_email"),
                hold.id,
            )
            .await?;
            tx.batch_execute("RELEASE SAVEPOINT renewal").await?;
            made.held += 1;
        }
        Ok(made)
    })
    .await
}

/// A renewal's hold is not capped per address: staff make them all.
fn renewal_rules() -> HoldRules {
    HoldRules {
        ttl: std::time::Duration::from_secs(1),
        max_seats: u32::MAX,
        max_holds_per_ip: 0,
        max_holds_per_key: 0,
        share_seats: 0,
    }
}

/// Each order of the old season that still has a ticket (a night given
/// back to sale counts: the subscription stands), with its places as the
/// new season names them.
const SUBSCRIBERS: &str = "SELECT o.id AS order_id, o.buyer_id, o.buyer_email,
            coalesce(array_agg(DISTINCT np.place_id ORDER BY np.place_id)
                         FILTER (WHERE np.place_id IS NOT NULL), '{}') AS places
       FROM orders o
       -- The order's places as its first night has them (a night reseated
       -- since doesn't add a place).
       JOIN tickets t ON t.order_id = o.id AND t.event_id = o.event_id
                     AND (t.voided_at IS NULL OR t.void_reason = 'released_to_sale')
       JOIN season_places op ON op.season_id = $1 AND op.seat_id = t.seat_id
       JOIN seats s0 ON s0.id = op.place_id
       JOIN sections sec0 ON sec0.id = s0.section_id
       LEFT JOIN sections nsec ON nsec.event_id = $3 AND nsec.name = sec0.name
       LEFT JOIN seats n0 ON n0.section_id = nsec.id AND n0.row_label = s0.row_label
                         AND n0.seat_label = s0.seat_label
       LEFT JOIN season_places np ON np.season_id = $2 AND np.place_id = n0.id
                                 AND np.event_id = $3
      WHERE o.season_id = $1
      GROUP BY o.id
      ORDER BY min(o.created_at), o.id";

/// A renewal as its signed link shows it.
#[derive(Debug, Clone)]
pub struct RenewalOffer {
    pub hold: SeasonHold,
    /// "OPEN", "PURCHASED", "RELEASED" or "EXPIRED".
    pub state: String,
    pub live: bool,
    pub from_order: OrderId,
    pub buyer_name: String,
    pub buyer_email: String,
    pub lang: String,
    /// The order it became, once renewed.
    pub renewed_as: Option<OrderId>,
}

/// The renewal hold `hold_id`, for its signed link.
pub async fn renewal_for_link(
    client: &impl GenericClient,
    hold_id: HoldId,
) -> AppResult<RenewalOffer> {
    let row = client
        .query_opt(
            "SELECT sh.state, sh.state = 'OPEN' AND sh.expires_at > now() AS live,
                    o.id AS from_order, o.buyer_name, o.buyer_email, o.lang,
                    (SELECT n.id FROM orders n WHERE n.season_hold_id = sh.id) AS renewed_as
               FROM season_holds sh JOIN orders o ON o.id = sh.renewal_of
              WHERE sh.id = $1",
            &[&hold_id],
        )
        .await?
        .ok_or(AppError::NotFound(Missing::Hold))?;
    let hold = lock_hold(client, hold_id, false)
        .await?
        .ok_or(AppError::NotFound(Missing::Hold))?;
    Ok(RenewalOffer {
        hold,
        state: row.get("state"),
        live: row.get("live"),
        from_order: row.get("from_order"),
        buyer_name: row.get("buyer_name"),
        buyer_email: row.get("buyer_email"),
        lang: row.get("lang"),
        renewed_as: row.get("renewed_as"),
    })
}
