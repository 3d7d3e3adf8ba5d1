//! A season itself: making it (its events, prices and places), reading
//! it, and its map, where a place is free only when free in every night.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use crate::db::{GenericClient, Pool};
use crate::domain::ids::{EventId, SeasonId};
use crate::domain::money::Currency;
use crate::domain::sale::SaleStatus;
use crate::domain::seat::Seat;
use crate::error::{AppError, AppResult, Invalid, Missing};

/// The most events one season may have.
pub const MAX_EVENTS: usize = 100;

#[derive(Debug, Clone)]
pub struct NewSeason {
    pub name: String,
    pub event_ids: Vec<EventId>,
    /// By tier code, the price of a place for the whole season (or for the
    /// events chosen). None: each tier's prices in the events, added up.
    pub prices: Option<BTreeMap<String, i32>>,
    pub on_sale_at: Option<OffsetDateTime>,
    pub choose_events: Option<i32>,
    pub release_credit: bool,
}

#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Season {
    pub id: SeasonId,
    pub name: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub on_sale_at: OffsetDateTime,
    /// A partial season: buyers choose this many of its events.
    pub choose_events: Option<i32>,
    /// Whether a subscriber who gives a night back is credited its share
    /// once it sells.
    pub release_credit: bool,
    #[schema(value_type = String, example = "EUR")]
    pub currency: Currency,
    pub time_zone: String,
    /// In start order; the first names the places.
    pub events: Vec<SeasonEvent>,
    pub prices: Vec<SeasonPrice>,
}

impl Season {
    pub fn first_event(&self) -> EventId {
        self.events[0].id
    }

    pub fn event_ids(&self) -> Vec<EventId> {
        self.events.iter().map(|event| event.id).collect()
    }

    /// The events a buyer takes: all of them, or (a partial season)
    /// exactly `choose_events` of them, each once.
    pub fn nights(&self, chosen: Option<&[EventId]>) -> AppResult<Vec<EventId>> {
        match (self.choose_events, chosen) {
            (None, None) => Ok(self.event_ids()),
            (None, Some(chosen)) if same_set(chosen, &self.event_ids()) => Ok(self.event_ids()),
            (Some(choose), Some(chosen)) => {
                let mut nights: Vec<EventId> = chosen.to_vec();
                nights.sort_unstable();
                nights.dedup();
                let all = self.event_ids();
                if nights.len() != chosen.len()
                    || nights.len() != choose as usize
                    || !nights.iter().all(|id| all.contains(id))
                {
                    return Err(AppError::Invalid(Invalid::SeasonChoice { choose }));
                }
                Ok(nights)
            }
            (Some(choose), None) => Err(AppError::Invalid(Invalid::SeasonChoice { choose })),
            (None, Some(_)) => Err(AppError::Invalid(Invalid::SeasonChoice {
                choose: self.events.len() as i32,
            })),
        }
    }
}

fn same_set(a: &[EventId], b: &[EventId]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct SeasonEvent {
    pub id: EventId,
    pub name: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub starts_at: OffsetDateTime,
    pub sale: SaleStatus,
}

#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct SeasonPrice {
    pub tier: String,
    pub tier_name: String,
    pub price_cents: i32,
}

/// Makes the season in one transaction: its events (in start order), its
/// prices, and the seat of each place in each event. Refused with
/// `season_events_differ` unless the events share a venue version, or
/// (events without a venue) are copies of one event, and every place of
/// the first event is in each of the others.
pub async fn create(pool: &Pool, new: &NewSeason) -> AppResult<SeasonId> {
    let mut ids = new.event_ids.clone();
    ids.sort_unstable();
    ids.dedup();
    if ids.len() != new.event_ids.len() || !(2..=MAX_EVENTS).contains(&ids.len()) {
        return Err(AppError::Invalid(Invalid::Season));
    }
    if let Some(choose) = new.choose_events
        && !(1..=ids.len() as i32).contains(&choose)
    {
        return Err(AppError::Invalid(Invalid::Season));
    }
    let season_id = crate::db::in_transaction(pool, async |tx| {
        // Key-share locked: no event is moved to another venue version, nor
        // deleted, while its places are written.
        let rows = tx
            .query(
                "SELECT id, venue_id, venue_version, coalesce(series_id, id) AS series, payment,
                        published_at IS NOT NULL AS published
                   FROM events WHERE id = ANY($1) ORDER BY starts_at, id FOR KEY SHARE",
                &[&ids],
            )
            .await?;
        if rows.len() != ids.len() {
            return Err(AppError::NotFound(Missing::Event));
        }
        let layout = |row: &tokio_postgres::Row| {
            (
                row.get::<_, Option<i64>>("venue_id"),
                row.get::<_, Option<i32>>("venue_version"),
                row.get::<_, Option<i64>>("venue_id")
                    .is_none()
                    .then(|| row.get::<_, i64>("series")),
            )
        };
        // A season is sold at once (its only payment mode so far): its
        // events' seats must not be had for nothing where they take money.
        if rows
            .iter()
            .any(|row| row.get::<_, &str>("payment") != "none")
        {
            return Err(AppError::Invalid(Invalid::Payment));
        }
        // On sale as it is made (the console says so): not over drafts,
        // which buyers can't see (the season's map would be a 404).
        if rows.iter().any(|row| !row.get::<_, bool>("published")) {
            return Err(AppError::Invalid(Invalid::SeasonOverDrafts));
        }
        let first = layout(&rows[0]);
        if rows.iter().any(|row| layout(row) != first) {
            return Err(AppError::Invalid(Invalid::SeasonEventsDiffer));
        }
        let (venue_id, venue_version, series_id) = first;
        let season_id: SeasonId = tx
            .query_one(
                "INSERT INTO seasons (name, venue_id, venue_version, series_id, on_sale_at,
                                      choose_events, release_credit)
                 VALUES ($1, $2, $3, $4, coalesce($5, now()), $6, $7) RETURNING id",
                &[
                    &new.name,
                    &venue_id,
                    &venue_version,
                    &series_id,
                    &new.on_sale_at,
                    &new.choose_events,
                    &new.release_credit,
                ],
            )
            .await?
            .get(0);
        fill(tx, season_id, new, &rows).await?;
        Ok(season_id)
    })
    .await?;
    // Thousands of new places the planner doesn't know of yet: without
    // statistics it read every place of every season to find one place's
    // seats (5 ms, and 9 ms for the claim, for a 20-event season of the
    // demo hall; 0.1 ms and 1.1 ms once analysed). ANALYZE reads a bounded
    // sample, as `events::create` does for seats.
    pool.get()
        .await?
        .batch_execute("ANALYZE season_places")
        .await?;
    Ok(season_id)
}

/// The season's events, prices and places, checked whole.
async fn fill(
    tx: &impl GenericClient,
    season_id: SeasonId,
    new: &NewSeason,
    rows: &[tokio_postgres::Row],
) -> AppResult<()> {
    let ordered: Vec<EventId> = rows.iter().map(|row| row.get("id")).collect();
    tx.execute(
        "INSERT INTO season_events (season_id, event_id, position)
         SELECT $1, e, n FROM unnest($2::bigint[]) WITH ORDINALITY AS u(e, n)",
        &[&season_id, &ordered],
    )
    .await?;
    let first = ordered[0];
    let tiers: Vec<String> = tx
        .query(
            "SELECT code FROM price_tiers WHERE event_id = $1 ORDER BY sort_order, id",
            &[&first],
        )
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect();
    match &new.prices {
        Some(prices) => {
            if let Some(unknown) = prices.keys().find(|code| !tiers.contains(code)) {
                return Err(AppError::Invalid(Invalid::UnknownTier(unknown.clone())));
            }
            if let Some(missing) = tiers.iter().find(|code| !prices.contains_key(*code)) {
                return Err(AppError::Invalid(Invalid::MissingPrice {
                    tier: missing.clone(),
                }));
            }
            let (codes, cents): (Vec<&String>, Vec<i32>) = prices.iter().unzip();
            tx.execute(
                "INSERT INTO season_prices (season_id, tier_code, price_cents)
                 SELECT $1, c, p FROM unnest($2::text[], $3::int[]) AS u(c, p)",
                &[&season_id, &codes, &cents],
            )
            .await?;
        }
        None => {
            // Each tier's prices added up over the events, scaled to the
            // number a partial season's buyer chooses.
            tx.execute(
                "INSERT INTO season_prices (season_id, tier_code, price_cents)
                 SELECT $1, t.code,
                        (sum(t.price_cents) * coalesce($3, count(*)) / count(*))::int
                   FROM price_tiers t WHERE t.event_id = ANY($2)
                  GROUP BY t.code",
                &[&season_id, &ordered, &new.choose_events.map(i64::from)],
            )
            .await?;
        }
    }
    // A night's places a statement: all nights' in one passed the
    // statement timeout for a season of the documented 100 events.
    let mut written = 0;
    for night in &ordered {
        written += tx
            .execute(
                "INSERT INTO season_places (season_id, place_id, event_id, seat_id)
                 SELECT $1, s0.id, s.event_id, s.id
                   FROM seats s0
                   JOIN sections sec0 ON sec0.id = s0.section_id
                   JOIN sections sec ON sec.event_id = $3 AND sec.name = sec0.name
                   JOIN seats s ON s.section_id = sec.id AND s.row_label = s0.row_label
                               AND s.seat_label = s0.seat_label
                  WHERE s0.event_id = $2",
                &[&season_id, &first, night],
            )
            .await?;
    }
    let places: i64 = tx
        .query_one("SELECT count(*) FROM seats WHERE event_id = $1", &[&first])
        .await?
        .get(0);
    if places == 0 || written != places as u64 * ordered.len() as u64 {
        return Err(AppError::Invalid(Invalid::SeasonEventsDiffer));
    }
    Ok(())
}

static SEASON_EVENTS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT s.id, s.name, s.on_sale_at, s.choose_events, s.release_credit,
                e.id AS event_id, e.name AS event_name, e.starts_at, e.currency, e.time_zone,
                {} AS sale
           FROM seasons s
           JOIN season_events se ON se.season_id = s.id
           JOIN events e ON e.id = se.event_id
          WHERE s.id = $1
          ORDER BY se.position",
        crate::db::events::SALE_STATUS
    )
});

/// Tier names from the first event (the season's places are its seats).
const SEASON_PRICES: &str = "SELECT p.tier_code, coalesce(t.name, p.tier_code) AS tier_name,
            p.price_cents
       FROM season_prices p
       LEFT JOIN season_events first ON first.season_id = p.season_id AND first.position = 1
       LEFT JOIN price_tiers t ON t.event_id = first.event_id AND t.code = p.tier_code
      WHERE p.season_id = $1
      ORDER BY t.sort_order, p.tier_code";

/// The season, its events in start order and its prices: one round trip.
pub async fn find(client: &impl GenericClient, season_id: SeasonId) -> AppResult<Season> {
    crate::db::prepare_together(client, &[SEASON_EVENTS.as_str(), SEASON_PRICES]).await?;
    let (rows, prices) = tokio::join!(
        async {
            let statement = client.prepare_cached(&SEASON_EVENTS).await?;
            client.query(&statement, &[&season_id]).await
        },
        async {
            let statement = client.prepare_cached(SEASON_PRICES).await?;
            client.query(&statement, &[&season_id]).await
        }
    );
    let (rows, prices) = (rows?, prices?);
    let Some(head) = rows.first() else {
        return Err(AppError::NotFound(Missing::Season));
    };
    Ok(Season {
        id: head.get("id"),
        name: head.get("name"),
        on_sale_at: head.get("on_sale_at"),
        choose_events: head.get("choose_events"),
        release_credit: head.get("release_credit"),
        currency: crate::db::events::currency_column(head.get("currency")),
        time_zone: head.get("time_zone"),
        events: rows
            .iter()
            .map(|row| SeasonEvent {
                id: row.get("event_id"),
                name: row.get("event_name"),
                starts_at: row.get("starts_at"),
                sale: SaleStatus::from_db(row.get("sale")),
            })
            .collect(),
        prices: prices
            .iter()
            .map(|row| SeasonPrice {
                tier: row.get("tier_code"),
                tier_name: row.get("tier_name"),
                price_cents: row.get("price_cents"),
            })
            .collect(),
    })
}

/// Every season buyers may see (all its events published and none
/// started), newest first: id, name and how many events.
pub async fn list(client: &impl GenericClient) -> AppResult<Vec<(SeasonId, String, i64)>> {
    let rows = client
        .query(
            "SELECT s.id, s.name, count(se.event_id) AS events
               FROM seasons s
               JOIN season_events se ON se.season_id = s.id
               JOIN events e ON e.id = se.event_id
              GROUP BY s.id
             HAVING bool_and(e.published_at IS NOT NULL AND e.starts_at > now()
                             AND e.cancelled_at IS NULL)
              ORDER BY s.id DESC",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| (row.get("id"), row.get("name"), row.get("events")))
        .collect())
}

/// Every season, for staff (drafts and past ones too), newest first.
pub async fn list_for_staff(
    client: &impl GenericClient,
) -> AppResult<Vec<(SeasonId, String, i64)>> {
    let rows = client
        .query(
            "SELECT s.id, s.name, count(se.event_id) AS events
               FROM seasons s JOIN season_events se ON se.season_id = s.id
              GROUP BY s.id ORDER BY s.id DESC",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| (row.get("id"), row.get("name"), row.get("events")))
        .collect())
}

/// How many orders the season has sold.
pub async fn orders_sold(client: &impl GenericClient, season_id: SeasonId) -> AppResult<i64> {
    Ok(client
        .query_one(
            "SELECT count(*) FROM orders WHERE season_id = $1",
            &[&season_id],
        )
        .await?
        .get(0))
}

/// The season's map: each place as its first-event seat, priced at the
/// season's price, and free only when it is free in every event of
/// `nights` (lapsed holds count as free, as a claim counts them). A place
/// the viewer's season hold has is "mine".
pub async fn map(
    client: &impl GenericClient,
    season_id: SeasonId,
    nights: &[EventId],
    viewer_hold: Option<crate::domain::ids::HoldId>,
) -> AppResult<Vec<Seat>> {
    let statement = client
        .prepare_cached(
            "WITH nights AS (
                 SELECT p.place_id,
                        bool_or(s.status = 'SOLD') AS sold,
                        bool_or(s.status = 'BLOCKED') AS blocked,
                        bool_or(s.status = 'HELD' AND s.held_until >= now()
                                AND coalesce(h.season_hold_id <> $3, true)) AS held,
                        bool_and(s.status = 'HELD' AND s.held_until >= now()
                                 AND h.season_hold_id = $3) AS mine,
                        min(s.held_until) FILTER (WHERE s.held_until >= now()) AS held_until
                   FROM season_places p
                   JOIN seats s ON s.id = p.seat_id
                   LEFT JOIN holds h ON h.id = s.hold_id
                  WHERE p.season_id = $1 AND p.event_id = ANY($2)
                  GROUP BY p.place_id
             )
             SELECT s0.id, sec.name AS section, s0.section_id, s0.row_label, s0.seat_label,
                    s0.row_index, s0.position, s0.x, s0.y, t.code AS tier_code, t.name AS tier_name,
                    coalesce(sp.price_cents, 0) AS price_cents, s0.accessibility, s0.view_note,
                    -- As a seat's own columns (db::seats): the place as a whole.
                    CASE WHEN n.sold THEN 'SOLD' WHEN n.blocked THEN 'BLOCKED'
                         WHEN n.held OR n.mine THEN 'HELD' ELSE 'AVAILABLE' END
                        AS effective_status,
                    coalesce(n.mine, false) AS held_by_viewer,
                    CASE WHEN NOT n.sold AND NOT n.blocked AND (n.held OR n.mine)
                         THEN n.held_until END AS held_until,
                    NULL::uuid AS holder
               FROM nights n
               JOIN seats s0 ON s0.id = n.place_id
               JOIN sections sec ON sec.id = s0.section_id
               JOIN price_tiers t ON t.id = s0.tier_id
               LEFT JOIN season_prices sp ON sp.season_id = $1 AND sp.tier_code = t.code
              ORDER BY sec.sort_order, sec.id, s0.row_index, s0.position",
        )
        .await?;
    let rows = client
        .query(&statement, &[&season_id, &nights, &viewer_hold])
        .await?;
    Ok(rows.iter().map(crate::db::seats::seat_from_row).collect())
}
