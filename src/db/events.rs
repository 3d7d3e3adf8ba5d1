use std::sync::LazyLock;

use serde::Serialize;
use time::OffsetDateTime;
use tokio_postgres::Row;

use super::{GenericClient, Pool};
use crate::domain::geometry::{self, Point};
use crate::domain::ids::EventId;
use crate::domain::ids::VenueId;
use crate::domain::layout::TierSpec;
use crate::domain::money::Currency;
use crate::domain::sale::SaleStatus;
use crate::domain::venue::VenueLayout;
use crate::error::{AppError, AppResult, Missing};

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct EventSummary {
    pub id: EventId,
    pub name: String,
    pub venue: String,
    #[serde(with = "time::serde::rfc3339")]
    pub starts_at: OffsetDateTime,
    pub seats_total: i64,
    pub seats_available: i64,
    /// General-admission places: all, and free now (lapsed holds count as free).
    pub ga_total: i64,
    pub ga_available: i64,
    /// The lowest price of anything free now (a seat or a GA place), if any.
    pub from_cents: Option<i32>,
    /// What its prices are in (ISO 4217); amounts are in its minor unit.
    #[schema(value_type = String, example = "EUR")]
    pub currency: Currency,
    /// The venue's IANA time zone.
    pub time_zone: String,
    pub sale: SaleStatus,
    #[serde(with = "time::serde::rfc3339::option")]
    pub on_sale_at: Option<OffsetDateTime>,
    /// False for a draft, which buyers are never shown (the buyers' API
    /// lists only published events, so it doesn't say).
    #[serde(skip)]
    pub published: bool,
    /// The series it belongs to (events copied from one another, named by
    /// the first), if any.
    pub series_id: Option<EventId>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tier {
    pub code: String,
    pub name: String,
    pub price_cents: i32,
    pub currency: Currency,
}

/// An event's sale state now; `e` is the events row. The rule itself is
/// the SQL function `sale_status` (migration V29), which the one-statement
/// pick uses too: one definition, inlined by the planner.
pub(super) const SALE_STATUS: &str = "sale_status(e)";

/// A lapsed hold counts as available, exactly as the claim query treats it.
fn summary_query(filter: &str) -> String {
    format!(
        "SELECT e.id, e.name, e.venue, e.starts_at, e.on_sale_at, e.currency, e.time_zone,
                {SALE_STATUS} AS sale, e.published_at IS NOT NULL AS published, e.series_id,
                count(s.id) AS seats_total,
                count(s.id) FILTER (WHERE s.status = 'AVAILABLE'
                                    OR (s.status = 'HELD' AND s.held_until < now())) AS seats_available,
                least(
                    min(t.price_cents) FILTER (WHERE s.status = 'AVAILABLE'
                                               OR (s.status = 'HELD' AND s.held_until < now())),
                    (SELECT min(p.price_cents) FROM ga_areas a JOIN price_tiers p ON p.id = a.tier_id
                      WHERE a.event_id = e.id AND a.capacity - a.held - a.sold > 0)
                ) AS from_cents,
                coalesce((SELECT sum(a.capacity) FROM ga_areas a WHERE a.event_id = e.id), 0)::bigint
                    AS ga_total,
                coalesce((SELECT sum(a.capacity - a.sold) FROM ga_areas a WHERE a.event_id = e.id), 0)::bigint
                  - coalesce((SELECT sum(t.quantity) FROM ga_tickets t
                               WHERE t.event_id = e.id AND t.order_id IS NULL
                                 AND t.held_until > now()), 0)::bigint AS ga_available
           FROM events e
           LEFT JOIN seats s ON s.event_id = e.id
           LEFT JOIN price_tiers t ON t.id = s.tier_id
          {filter}
          GROUP BY e.id
          ORDER BY e.starts_at, e.id"
    )
}

fn summary_from_row(row: &Row) -> EventSummary {
    EventSummary {
        id: row.get("id"),
        name: row.get("name"),
        venue: row.get("venue"),
        starts_at: row.get("starts_at"),
        seats_total: row.get("seats_total"),
        seats_available: row.get("seats_available"),
        ga_total: row.get("ga_total"),
        ga_available: row.get("ga_available"),
        from_cents: row.get("from_cents"),
        currency: currency_column(row.get("currency")),
        time_zone: row.get("time_zone"),
        sale: SaleStatus::from_db(row.get("sale")),
        on_sale_at: row.get("on_sale_at"),
        published: row.get("published"),
        series_id: row.get("series_id"),
    }
}

/// The events buyers see: published ones.
pub async fn list(client: &impl GenericClient) -> AppResult<Vec<EventSummary>> {
    let statement = client
        .prepare_cached(&summary_query("WHERE e.published_at IS NOT NULL"))
        .await?;
    let rows = client.query(&statement, &[]).await?;
    Ok(rows.iter().map(summary_from_row).collect())
}

/// Every event, drafts too: for staff.
pub async fn list_for_staff(client: &impl GenericClient) -> AppResult<Vec<EventSummary>> {
    let statement = client.prepare_cached(&summary_query("")).await?;
    let rows = client.query(&statement, &[]).await?;
    Ok(rows.iter().map(summary_from_row).collect())
}

pub async fn find(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Option<EventSummary>> {
    let statement = client
        .prepare_cached(&summary_query("WHERE e.id = $1"))
        .await?;
    let row = client.query_opt(&statement, &[&event_id]).await?;
    Ok(row.as_ref().map(summary_from_row))
}

pub async fn id_by_slug(client: &impl GenericClient, slug: &str) -> AppResult<Option<EventId>> {
    let row = client
        .query_opt("SELECT id FROM events WHERE slug = $1", &[&slug])
        .await?;
    Ok(row.map(|row| row.get(0)))
}

/// Whether the event is published; None: there is no such event.
pub async fn published(client: &impl GenericClient, event_id: EventId) -> AppResult<Option<bool>> {
    let statement = client
        .prepare_cached("SELECT published_at IS NOT NULL FROM events WHERE id = $1")
        .await?;
    let row = client.query_opt(&statement, &[&event_id]).await?;
    Ok(row.map(|row| row.get(0)))
}

pub async fn exists(client: &impl GenericClient, event_id: EventId) -> AppResult<bool> {
    let statement = client
        .prepare_cached("SELECT 1 FROM events WHERE id = $1")
        .await?;
    Ok(client.query_opt(&statement, &[&event_id]).await?.is_some())
}

/// Refuses unless the event is on sale now. Takes a key-share lock on the
/// event, as inserting a hold does anyway: many claims share it, and staff
/// closing sales (`lock_for_closing`) wait for those in flight and hold off
/// new ones, so no hold slips in after the close has released the rest.
/// Take it before locking any hold, as closing does.
/// How the event locked for a purchase is paid for.
#[derive(Debug, Clone, Copy)]
pub struct EventPayment {
    pub mode: crate::domain::payment::PaymentMode,
    pub box_office_window: std::time::Duration,
}

pub(super) async fn lock_on_sale(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<EventPayment> {
    let (status, on_sale_at, time_zone, payment, _) =
        lock_sale_status(client, event_id, LockUnless::Closed).await?;
    refuse_buyer(status, on_sale_at, &time_zone)?;
    Ok(payment)
}

/// [`lock_on_sale`] for a buyer's claim: whether parties wait on the
/// event's waitlist (read by the same statement, so no round trip more).
pub(super) async fn lock_on_sale_for_claim(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<bool> {
    let (status, on_sale_at, time_zone, _, waitlist_waiting) =
        lock_sale_status(client, event_id, LockUnless::Closed).await?;
    refuse_buyer(status, on_sale_at, &time_zone)?;
    Ok(waitlist_waiting)
}

/// A buyer is told a draft doesn't exist, as its pages are.
fn refuse_buyer(
    status: SaleStatus,
    on_sale_at: Option<OffsetDateTime>,
    time_zone: &str,
) -> AppResult<()> {
    match status {
        SaleStatus::Draft => Err(AppError::NotFound(Missing::Event)),
        status => Ok(status.refuse(on_sale_at, time_zone)?),
    }
}

/// The box office keeps selling at the door after online sales close or
/// the show starts, but not for a cancelled event, nor a draft (409
/// `event_not_published`: staff see drafts, so they are told why).
pub(super) async fn lock_not_cancelled(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<()> {
    match lock_sale_status(client, event_id, LockUnless::Cancelled).await? {
        (status @ (SaleStatus::Cancelled | SaleStatus::Draft), on_sale_at, time_zone, _, _) => {
            Ok(status.refuse(on_sale_at, &time_zone)?)
        }
        _ => Ok(()),
    }
}

/// [`lock_not_cancelled`] for setting seats aside: a draft's house seats
/// are blocked before it is published.
pub(super) async fn lock_not_cancelled_even_draft(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<()> {
    match lock_sale_status(client, event_id, LockUnless::Cancelled).await? {
        (SaleStatus::Cancelled, on_sale_at, time_zone, _, _) => {
            Ok(SaleStatus::Cancelled.refuse(on_sale_at, &time_zone)?)
        }
        _ => Ok(()),
    }
}

/// The statement [`lock_on_sale`] sends first (see `db::prepare_together`).
pub(super) static LOCK_ON_SALE: LazyLock<String> =
    LazyLock::new(|| lock_sale_status_sql("e.sales_closed_at IS NULL"));
static LOCK_NOT_CANCELLED: LazyLock<String> =
    LazyLock::new(|| lock_sale_status_sql("e.cancelled_at IS NULL"));

fn lock_sale_status_sql(still_open: &str) -> String {
    format!(
        "SELECT {SALE_STATUS} AS sale, e.on_sale_at, e.time_zone, e.payment,
                e.box_office_window_secs, {WAITLIST_WAITING} AS waitlist_waiting
           FROM events e
          WHERE e.id = $1 AND {still_open} FOR KEY SHARE"
    )
}

/// Whether parties wait on the event's waitlist (not paused): a claim then
/// asks, when refused, whether the waitlist kept the seats.
const WAITLIST_WAITING: &str = "(NOT e.waitlist_paused
     AND EXISTS (SELECT 1 FROM waitlist_entries w
                  WHERE w.event_id = e.id AND w.status = 'waiting'
                    AND w.confirmed_at IS NOT NULL))";

/// Which ended events a key-share lock is not taken on.
enum LockUnless {
    Closed,
    Cancelled,
}

/// The event's sale state, with a key-share lock if sales are still open
/// (`LockUnless::Closed`) or it isn't cancelled (`LockUnless::Cancelled`).
/// An ended event is read without one: a refused request that locked the
/// row anyway would keep the lock taken, under a steady stream of them,
/// and closing (which waits for the lock to be free) would starve.
async fn lock_sale_status(
    client: &impl GenericClient,
    event_id: EventId,
    unless: LockUnless,
) -> AppResult<(
    SaleStatus,
    Option<OffsetDateTime>,
    String,
    EventPayment,
    bool,
)> {
    let locked = client
        .prepare_cached(match unless {
            LockUnless::Closed => &LOCK_ON_SALE,
            LockUnless::Cancelled => &LOCK_NOT_CANCELLED,
        })
        .await?;
    let row = match client.query_opt(&locked, &[&event_id]).await? {
        Some(row) => row,
        None => client
            .query_opt(
                &client
                    .prepare_cached(&format!(
                        "SELECT {SALE_STATUS} AS sale, e.on_sale_at, e.time_zone, e.payment,
                                e.box_office_window_secs, {WAITLIST_WAITING} AS waitlist_waiting
                           FROM events e WHERE e.id = $1"
                    ))
                    .await?,
                &[&event_id],
            )
            .await?
            .ok_or_else(|| AppError::NotFound(Missing::Event))?,
    };
    Ok((
        SaleStatus::from_db(row.get("sale")),
        row.get("on_sale_at"),
        row.get("time_zone"),
        EventPayment {
            mode: crate::domain::payment::PaymentMode::parse(row.get("payment"))
                .unwrap_or_default(),
            box_office_window: std::time::Duration::from_secs(
                row.get::<_, i32>("box_office_window_secs").max(0) as u64,
            ),
        },
        row.get("waitlist_waiting"),
    ))
}

/// Waits for every claim and purchase that locked the event while sales
/// were open to finish, and keeps the event locked until this transaction
/// ends. Only after [`mark_closed`] has committed: from then on no new
/// request takes the key-share lock, so the wait is bounded.
pub(super) async fn lock_for_closing(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<()> {
    let statement = client
        .prepare_cached("SELECT 1 FROM events WHERE id = $1 FOR UPDATE")
        .await?;
    client
        .query_opt(&statement, &[&event_id])
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Event))?;
    Ok(())
}

/// Ends online sales (and, with `cancel`, the event), returning the sale
/// state before. Its row lock (FOR NO KEY UPDATE) does not conflict with
/// the key-share locks of claims in flight, so it never waits behind them;
/// once it commits, new claims and purchases are refused.
pub(super) async fn mark_closed(
    client: &impl GenericClient,
    event_id: EventId,
    cancel: bool,
) -> AppResult<SaleStatus> {
    let before = client
        .prepare_cached(&format!(
            "SELECT {SALE_STATUS} AS sale FROM events e WHERE e.id = $1 FOR NO KEY UPDATE"
        ))
        .await?;
    let before = client
        .query_opt(&before, &[&event_id])
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Event))?;
    let statement = client
        .prepare_cached(
            "UPDATE events SET sales_closed_at = coalesce(sales_closed_at, now()),
                               cancelled_at = CASE WHEN $2 THEN coalesce(cancelled_at, now()) ELSE cancelled_at END
              WHERE id = $1",
        )
        .await?;
    client.execute(&statement, &[&event_id, &cancel]).await?;
    Ok(SaleStatus::from_db(before.get("sale")))
}

/// Everything an event is made of, ready to insert.
#[derive(Debug, Clone)]
pub struct NewEvent {
    /// A stable handle for idempotent seeding; `None` for ordinary events.
    pub slug: Option<String>,
    pub name: String,
    pub venue_id: Option<VenueId>,
    /// The venue version the seats are built from (with `venue_id`).
    pub venue_version: Option<i32>,
    pub starts_at: OffsetDateTime,
    pub on_sale_at: Option<OffsetDateTime>,
    /// ISO 4217, checked (`money::Currency`).
    pub currency: String,
    /// Prices for the layout's tiers.
    pub tiers: Vec<TierSpec>,
    /// Where everything is: sections, seats, areas, stage, time zone.
    pub layout: VenueLayout,
    /// False: a draft, seen by staff only until they publish it.
    pub published: bool,
}

/// Creates the event with all its seats and areas in one transaction. If
/// it has a slug that already exists, returns that event instead.
pub async fn create(pool: &Pool, event: &NewEvent) -> AppResult<EventId> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let inserted = tx
        .query_opt(
            "INSERT INTO events (slug, name, venue, venue_id, starts_at, on_sale_at,
                                 currency, time_zone, stage, venue_version, labels, published_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
                     CASE WHEN $12 THEN now() END)
             ON CONFLICT (slug) DO NOTHING RETURNING id",
            &[
                &event.slug,
                &event.name,
                &event.layout.name,
                &event.venue_id,
                &event.starts_at,
                &event.on_sale_at,
                &event.currency,
                &event.layout.time_zone,
                &outline_column(&event.layout.stage),
                &event.venue_version,
                &event.layout.labels_json(),
                &event.published,
            ],
        )
        .await?;
    let event_id: EventId = match inserted {
        Some(row) => row.get(0),
        None => {
            let row = tx
                .query_one("SELECT id FROM events WHERE slug = $1", &[&event.slug])
                .await?;
            return Ok(row.get(0));
        }
    };
    insert_layout(&tx, event_id, event).await?;
    tx.commit().await?;
    // Thousands of new seats the planner doesn't know of yet: until
    // autovacuum gets to them, a herd on the new event would be planned as
    // if it had none (best available read every seat of the event per row
    // it looked at: 80 ms instead of 0.1 ms). ANALYZE reads a sample of at
    // most 30,000 rows, so its cost is bounded: 82-97 ms over three runs on
    // a 21,000-seat table here.
    client.batch_execute("ANALYZE seats").await?;
    Ok(event_id)
}

/// Seats one statement inserts. All 100,000 of the largest venue in one
/// statement took 3.4 s here (the seats table's eight indexes included),
/// close to the 5 s statement timeout on an idle machine and past it on a
/// busy one; a batch of 5,000 takes about a twentieth of that.
const SEATS_PER_STATEMENT: usize = 5_000;

async fn insert_layout(
    tx: &impl GenericClient,
    event_id: EventId,
    spec: &NewEvent,
) -> AppResult<()> {
    for (order, tier) in spec.tiers.iter().enumerate() {
        tx.execute(
            "INSERT INTO price_tiers (event_id, code, name, price_cents, sort_order)
             VALUES ($1, $2, $3, $4, $5)",
            &[
                &event_id,
                &tier.code,
                &tier.name,
                &tier.price_cents,
                &(order as i32),
            ],
        )
        .await?;
    }
    let layout = &spec.layout;
    let mut section_ids = Vec::with_capacity(layout.sections.len());
    for (order, section) in layout.sections.iter().enumerate() {
        let row = tx
            .query_one(
                "INSERT INTO sections (event_id, name, sort_order, outline)
                 VALUES ($1, $2, $3, $4) RETURNING id",
                &[
                    &event_id,
                    &section.name,
                    &(order as i32),
                    &outline_column(&section.venue_outline()),
                ],
            )
            .await?;
        section_ids.push(row.get::<_, i64>(0));
    }

    insert_seats(tx, event_id, &section_ids, &layout.seat_specs()).await?;
    for (order, area) in layout.ga_areas.iter().enumerate() {
        let outline = area
            .outline
            .as_ref()
            .map(|o| geometry::flatten(&geometry::from_pairs(o)));
        let inserted = tx
            .execute(
                "INSERT INTO ga_areas (event_id, name, tier_id, capacity, sort_order, outline)
                 SELECT $1, $2, t.id, $4, $5, $6 FROM price_tiers t WHERE t.event_id = $1 AND t.code = $3",
                &[
                    &event_id,
                    &area.name,
                    &area.tier,
                    &(area.capacity as i32),
                    &(order as i32),
                    &outline,
                ],
            )
            .await?;
        if inserted != 1 {
            return Err(
                anyhow::anyhow!("area {:?} names a tier it does not define", area.name).into(),
            );
        }
    }
    Ok(())
}

/// Events are created with a checked currency; a code this build does not
/// know (a newer ISO list wrote it) shows in euros rather than failing.
pub(crate) fn currency_column(code: &str) -> Currency {
    Currency::from_code(code).unwrap_or_default()
}

/// A polygon as its column stores it; none for fewer than three points.
pub(super) fn outline_column(points: &[Point]) -> Option<Vec<f32>> {
    (points.len() >= 3).then(|| geometry::flatten(points))
}

pub async fn tiers(client: &impl GenericClient, event_id: EventId) -> AppResult<Vec<Tier>> {
    let statement = client
        .prepare_cached(
            "SELECT t.code, t.name, t.price_cents, e.currency
               FROM price_tiers t JOIN events e ON e.id = t.event_id
              WHERE t.event_id = $1 ORDER BY t.sort_order, t.price_cents DESC",
        )
        .await?;
    let rows = client.query(&statement, &[&event_id]).await?;
    Ok(rows
        .iter()
        .map(|row| Tier {
            code: row.get("code"),
            name: row.get("name"),
            price_cents: row.get("price_cents"),
            currency: currency_column(row.get("currency")),
        })
        .collect())
}

/// Inserts seats of the event, each into `section_ids[seat.section_index]`.
/// Arrays in, unnest out, a bounded batch per statement: the largest
/// venue a layout may describe (100,000 seats) in one statement would
/// outlast the statement timeout. Ids follow the seats' order (ORDER BY
/// ordinality, batch after batch), so "claim in id order" is also left
/// to right. Every seat's tier must be one of the event's.
pub(super) async fn insert_seats(
    tx: &impl GenericClient,
    event_id: EventId,
    section_ids: &[i64],
    seats: &[crate::domain::layout::SeatSpec],
) -> AppResult<u64> {
    let statement = tx.prepare_cached(&insert_seats_sql(false)).await?;
    let mut inserted = 0;
    for batch in seats.chunks(SEATS_PER_STATEMENT) {
        let columns = SeatColumns::new(batch, section_ids);
        inserted += tx.execute(&statement, &columns.params(&event_id)).await?;
    }
    if inserted != seats.len() as u64 {
        return Err(anyhow::anyhow!(
            "layout names a tier it does not define: {} of {} seats inserted",
            inserted,
            seats.len()
        )
        .into());
    }
    Ok(inserted)
}

/// The statement a [`SeatColumns`] batch is inserted with. `only_new`
/// skips a seat its section already has (by row and label), as a move
/// does after updating the seats it keeps.
pub(super) fn insert_seats_sql(only_new: bool) -> String {
    let skip_kept = if only_new {
        "WHERE NOT EXISTS (SELECT 1 FROM seats s
                            WHERE s.section_id = l.section_id AND s.row_label = l.row_label
                              AND s.seat_label = l.seat_label)"
    } else {
        ""
    };
    format!(
        "INSERT INTO seats (event_id, section_id, tier_id, row_label, seat_label,
                            row_index, position, x, y, rank, accessibility, view_note)
         SELECT $1, l.section_id, t.id, l.row_label, l.seat_label,
                l.row_index, l.position, l.x, l.y, l.rank,
                coalesce(string_to_array(nullif(l.flags, ''), ','), '{{}}'), l.view_note
           FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[],
                       $6::int[], $7::int[], $8::real[], $9::real[], $10::int[], $11::text[],
                       $12::text[])
                WITH ORDINALITY
                AS l(section_id, tier, row_label, seat_label, row_index, position, x, y, rank, flags,
                     view_note, ord)
           JOIN price_tiers t ON t.event_id = $1 AND t.code = l.tier
          {skip_kept}
          ORDER BY l.ord"
    )
}

/// A batch of seats as the arrays the seat statements unnest, in the order
/// `$2` … `$11` name them (`$1` is the event).
pub(super) struct SeatColumns<'a> {
    pub(super) section: Vec<i64>,
    pub(super) tier: Vec<&'a str>,
    pub(super) row: Vec<&'a str>,
    pub(super) label: Vec<&'a str>,
    pub(super) row_index: Vec<i32>,
    pub(super) position: Vec<i32>,
    pub(super) x: Vec<f32>,
    pub(super) y: Vec<f32>,
    pub(super) rank: Vec<i32>,
    /// Comma-separated, as the statements split them.
    pub(super) flags: Vec<String>,
    pub(super) view_note: Vec<Option<&'a str>>,
}

impl<'a> SeatColumns<'a> {
    /// Each seat goes into `section_ids[seat.section_index]`.
    pub(super) fn new(
        batch: &'a [crate::domain::layout::SeatSpec],
        section_ids: &[i64],
    ) -> SeatColumns<'a> {
        SeatColumns {
            section: batch.iter().map(|s| section_ids[s.section_index]).collect(),
            tier: batch.iter().map(|s| s.tier.as_str()).collect(),
            row: batch.iter().map(|s| s.row_label.as_str()).collect(),
            label: batch.iter().map(|s| s.seat_label.as_str()).collect(),
            row_index: batch.iter().map(|s| s.row_index).collect(),
            position: batch.iter().map(|s| s.position).collect(),
            x: batch.iter().map(|s| s.x).collect(),
            y: batch.iter().map(|s| s.y).collect(),
            rank: batch.iter().map(|s| s.rank).collect(),
            flags: batch
                .iter()
                .map(|s| {
                    s.flags
                        .iter()
                        .map(|f| f.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect(),
            view_note: batch.iter().map(|s| s.view_note.as_deref()).collect(),
        }
    }

    pub(super) fn params<'b>(
        &'b self,
        event_id: &'b EventId,
    ) -> [&'b (dyn tokio_postgres::types::ToSql + Sync); 12] {
        [
            event_id,
            &self.section,
            &self.tier,
            &self.row,
            &self.label,
            &self.row_index,
            &self.position,
            &self.x,
            &self.y,
            &self.rank,
            &self.flags,
            &self.view_note,
        ]
    }
}
