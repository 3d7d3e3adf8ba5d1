//! Holds: one buyer's basket of seats for one event, with a fixed expiry.

use std::net::IpAddr;
use std::sync::LazyLock;
use std::time::Duration;

use time::OffsetDateTime;
use tokio_postgres::Row;
use uuid::Uuid;

use super::ga::{self, GaHeld, GaRequest};
use super::rate_limits::{self, Counter, RequestLimits};
use super::{GenericClient, Pool, events, retrying, seats};
use crate::domain::ids::AreaId;
use crate::domain::ids::{Actor, ApiKeyId, BuyerId, EventId, HoldId, SeatId};
use crate::domain::locale::EventLocale;
use crate::domain::seat::SeatIds;
use crate::error::{AppError, AppResult, Conflict, Limit, Missing};
use crate::observability as obs;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldState {
    Open,
    Released,
    Purchased,
    Expired,
    /// Checked out: its seats wait for the order's payment.
    Paying,
}

impl HoldState {
    fn from_db(state: &str) -> HoldState {
        match state {
            "OPEN" => HoldState::Open,
            "RELEASED" => HoldState::Released,
            "PURCHASED" => HoldState::Purchased,
            "PAYING" => HoldState::Paying,
            _ => HoldState::Expired,
        }
    }
}

/// The rules a new or growing hold must keep.
#[derive(Debug, Clone, Copy)]
pub struct HoldRules {
    pub ttl: Duration,
    pub max_seats: u32,
    /// Live holds one client address may have (0 = no cap).
    pub max_holds_per_ip: u32,
    /// Live holds made with one API key, all its customers (0 = no cap).
    pub max_holds_per_key: u32,
}

impl HoldRules {
    pub fn from_config(config: &crate::config::Config) -> HoldRules {
        HoldRules {
            ttl: config.hold_ttl,
            max_seats: config.max_seats_per_hold,
            max_holds_per_ip: config.limits.max_holds_per_ip,
            max_holds_per_key: config.limits.max_holds_per_key,
        }
    }
}

/// Who is asking for seats: the buyer, and what their hold counts
/// against: a buyer's own client address (its /64 for IPv6), or the API
/// key an integrator's customer came through. Staff count against neither.
#[derive(Debug, Clone, Copy)]
pub struct Holder {
    pub buyer_id: BuyerId,
    pub client_ip: Option<IpAddr>,
    pub api_key: Option<ApiKeyId>,
    /// The request's per-minute limits, when it is still to be counted:
    /// the claim counts it as its transaction's last statement (one commit,
    /// not two), or alone if the claim fails, since a refused request
    /// counts too ([`counting_request`]). None: counted already, or staff.
    pub request: Option<RequestLimits>,
}

/// The per-minute counters a hold request bumps.
fn request_counters(holder: &Holder, limits: RequestLimits) -> [Counter; 2] {
    let buyer = Counter {
        key: format!("hold:buyer:{}", holder.buyer_id),
        max: limits.per_buyer,
    };
    // A key's calls all come from its integrator's servers: its limits are
    // the key's and each customer's, not the address's.
    let peer = match (holder.api_key, holder.client_ip) {
        (Some(key), _) => Counter {
            key: format!("hold:key:{key}"),
            max: limits.per_peer,
        },
        (None, Some(ip)) => Counter {
            key: format!("hold:ip:{ip}"),
            max: limits.per_peer,
        },
        (None, None) => Counter {
            key: String::new(),
            max: 0,
        },
    };
    [buyer, peer]
}

/// Counts the holder's request, if it is still to be counted (429 when
/// that would take a counter over its limit). In a claim's transaction,
/// the counters' row locks are held to its commit: send it last.
pub async fn count_request(client: &impl GenericClient, holder: &Holder) -> AppResult<()> {
    match holder.request {
        Some(limits) => {
            let counters = request_counters(holder, limits);
            rate_limits::hit(client, limits.clock, 60, &counters, Limit::HoldRequests).await
        }
        None => Ok(()),
    }
}

/// Refuses, writing nothing, a request whose limits are already spent:
/// sent in a claim's first round trip, so a client over its limit is
/// turned away before the claim takes any lock.
pub async fn refuse_if_spent(client: &impl GenericClient, holder: &Holder) -> AppResult<()> {
    match holder.request {
        Some(limits) => {
            let counters = request_counters(holder, limits);
            rate_limits::refuse_if_spent(client, limits.clock, 60, &counters, Limit::HoldRequests)
                .await
        }
        None => Ok(()),
    }
}

/// Runs a claim whose transaction counts the holder's request (with
/// [`count_request`]), with retries. A claim that fails rolls its count
/// back, so the request is then counted alone: refused requests count
/// too. Over the limit, the answer is 429 whatever the claim's was.
pub(super) async fn counting_request<T, F, Fut>(
    pool: &Pool,
    holder: Holder,
    attempt: F,
) -> AppResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = AppResult<T>>,
{
    let outcome = retrying(attempt).await;
    if holder.request.is_none() || outcome.is_ok() {
        return outcome;
    }
    // Refused by the request limits themselves: nothing to count. (A cap
    // on live holds is another refusal, and the request counts.)
    if let Err(AppError::TooManyRequests {
        limit: Limit::HoldRequests,
        ..
    }) = outcome
    {
        return outcome;
    }
    let counted = match pool.get().await {
        Ok(client) => count_request(&client, &holder).await,
        Err(err) => Err(err.into()),
    };
    match counted {
        Err(over @ AppError::TooManyRequests { .. }) => Err(over),
        Err(err) => {
            tracing::warn!(error = %crate::error::for_log(&err), "could not count a failed hold request");
            outcome
        }
        Ok(()) => outcome,
    }
}

#[derive(Debug, Clone)]
pub struct Hold {
    pub id: HoldId,
    pub event_id: EventId,
    pub buyer_id: BuyerId,
    pub state: HoldState,
    pub expires_at: OffsetDateTime,
    /// Open and not yet past its expiry, by the database's clock.
    pub live: bool,
    /// Closed by box-office staff rather than by the buyer.
    pub released_by_staff: bool,
    /// Its one "need more time" extension has been used.
    pub extended: bool,
    /// How its event shows prices and times.
    pub locale: EventLocale,
    /// How its event is paid for.
    pub payment: crate::domain::payment::PaymentMode,
}

/// What a successful claim leaves the buyer holding.
#[derive(Debug, Clone)]
pub struct HoldSummary {
    pub hold_id: HoldId,
    pub expires_at: OffsetDateTime,
    pub seat_ids: SeatIds,
    /// The hold as the transaction leaves it, and its seats as its buyer
    /// sees them, in layout order: what a page shows without reading again.
    pub hold: Hold,
    pub seats: Vec<seats::Seat>,
    /// General-admission tickets, by area.
    pub ga: Vec<GaHeld>,
}

/// What one request asks to add to a hold: seats by id, GA tickets by area.
#[derive(Debug, Clone, Default)]
pub struct Cart {
    pub seat_ids: SeatIds,
    pub ga: Vec<GaRequest>,
}

impl Cart {
    pub fn seats(seat_ids: &[SeatId]) -> Cart {
        Cart {
            seat_ids: SeatIds::new(seat_ids.iter().copied()),
            ga: Vec::new(),
        }
    }
}

/// The hold's contents now, for answering a request that changed it: its
/// seats and GA tickets, read together (one round trip).
pub(super) async fn summary(client: &impl GenericClient, hold: &Hold) -> AppResult<HoldSummary> {
    let (held, ga) = tokio::join!(
        seats::held_by_hold(client, hold.event_id, hold.id),
        ga::held_by(client, hold.id)
    );
    let held = held?;
    Ok(HoldSummary {
        hold_id: hold.id,
        expires_at: hold.expires_at,
        seat_ids: held.iter().map(|seat| seat.id).collect(),
        hold: hold.clone(),
        seats: held,
        ga: ga?,
    })
}

/// Refuses a hold that, with `adding` more, would have more than `max`
/// tickets, seats and GA together.
pub(super) fn refuse_if_over(summary: &HoldSummary, adding: usize, max: u32) -> AppResult<()> {
    if summary.seat_ids.len() + ga::ticket_count(&summary.ga) + adding > max as usize {
        return Err(AppError::HoldLimit { max });
    }
    Ok(())
}

// The event's currency and zone come from a subquery, not a join: these
// columns are read under FOR UPDATE, which would lock a joined event row.
const HOLD_COLUMNS: &str = "id, event_id, buyer_id, state, expires_at,
     (state = 'OPEN' AND expires_at > now()) AS live,
     (released_by_staff IS NOT NULL OR released_by_key IS NOT NULL) AS released_by_staff, extended,
     (SELECT ARRAY[e.currency, e.time_zone, e.payment] FROM events e WHERE e.id = holds.event_id) AS locale";

fn hold_from_row(row: &Row) -> Hold {
    Hold {
        id: row.get("id"),
        event_id: row.get("event_id"),
        buyer_id: row.get("buyer_id"),
        state: HoldState::from_db(row.get("state")),
        expires_at: row.get("expires_at"),
        live: row.get("live"),
        released_by_staff: row.get("released_by_staff"),
        extended: row.get("extended"),
        locale: match row.get::<_, Vec<String>>("locale").as_slice() {
            [currency, zone, ..] => {
                crate::i18n::locale(super::events::currency_column(currency), zone)
            }
            _ => EventLocale::default(),
        },
        payment: row
            .get::<_, Vec<String>>("locale")
            .get(2)
            .and_then(|mode| crate::domain::payment::PaymentMode::parse(mode))
            .unwrap_or_default(),
    }
}

/// The buyer's live hold for the event, if any.
pub async fn live_for_buyer(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {HOLD_COLUMNS} FROM holds
              WHERE event_id = $1 AND buyer_id = $2 AND state = 'OPEN' AND expires_at > now()"
        ))
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id, &buyer_id])
        .await?;
    Ok(row.as_ref().map(hold_from_row))
}

pub(super) static LOCK_FOR_BUYER: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {HOLD_COLUMNS} FROM holds WHERE id = $1 AND buyer_id = $2 FOR UPDATE")
});

/// The hold, locked for this transaction, if it exists and is the buyer's.
async fn lock_for_buyer(
    client: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let statement = client.prepare_cached(&LOCK_FOR_BUYER).await?;
    let row = client.query_opt(&statement, &[&hold_id, &buyer_id]).await?;
    Ok(row.as_ref().map(hold_from_row))
}

/// The event of the hold (if it is the buyer's, when one is given), read
/// without a lock, so the event can be locked before the hold.
pub(super) async fn event_of(
    client: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: Option<BuyerId>,
) -> AppResult<Option<EventId>> {
    let statement = client
        .prepare_cached(
            "SELECT event_id FROM holds WHERE id = $1 AND ($2::uuid IS NULL OR buyer_id = $2)",
        )
        .await?;
    let row = client.query_opt(&statement, &[&hold_id, &buyer_id]).await?;
    Ok(row.map(|row| row.get(0)))
}

pub(super) async fn lock_for_buyer_or_404(
    client: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: BuyerId,
) -> AppResult<Hold> {
    lock_for_buyer(client, hold_id, buyer_id)
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Hold))
}

/// The buyer's open hold for the event, locked; a new one expiring
/// `rules.ttl` from now if there is none. A lapsed open hold is closed
/// first, so the one-open-hold-per-buyer index lets the new one in. The
/// lock serialises one buyer's concurrent requests for the event.
pub(super) async fn lock_or_open(
    client: &impl GenericClient,
    event_id: EventId,
    holder: Holder,
    rules: HoldRules,
) -> AppResult<Hold> {
    let (closed, open) = tokio::join!(
        close_lapsed(client, event_id, holder.buyer_id),
        lock_open(client, event_id, holder.buyer_id)
    );
    closed?;
    match open? {
        Some(hold) => Ok(hold),
        None => open_new(client, event_id, holder, rules).await,
    }
}

pub(super) const CLOSE_LAPSED: &str = "UPDATE holds SET state = 'EXPIRED', closed_at = now()
      WHERE event_id = $1 AND buyer_id = $2 AND state = 'OPEN' AND expires_at <= now()";

pub(super) static LOCK_OPEN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {HOLD_COLUMNS} FROM holds
          WHERE event_id = $1 AND buyer_id = $2 AND state = 'OPEN' AND expires_at > now()
            FOR UPDATE"
    )
});

/// Closes the buyer's open hold for the event if it has lapsed, so the
/// one-open-hold-per-buyer index lets a new one in.
async fn close_lapsed(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<()> {
    let close_lapsed = client.prepare_cached(CLOSE_LAPSED).await?;
    client
        .execute(&close_lapsed, &[&event_id, &buyer_id])
        .await?;
    Ok(())
}

/// The buyer's open, unlapsed hold for the event, locked. (Not lapsed
/// either way: it may run before or after [`close_lapsed`], which it is
/// sent with.)
async fn lock_open(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let lock = client.prepare_cached(&LOCK_OPEN).await?;
    let row = client.query_opt(&lock, &[&event_id, &buyer_id]).await?;
    Ok(row.as_ref().map(hold_from_row))
}

/// Opens a hold for a buyer who has none. It counts against its client
/// address, or its API key (see [`refuse_if_full`]).
pub(super) async fn open_new(
    client: &impl GenericClient,
    event_id: EventId,
    holder: Holder,
    rules: HoldRules,
) -> AppResult<Hold> {
    if let (Some(ip), max @ 1..) = (holder.client_ip, rules.max_holds_per_ip) {
        refuse_if_full(client, CappedBy::Address(ip), max).await?;
    }
    if let (Some(key), max @ 1..) = (holder.api_key, rules.max_holds_per_key) {
        refuse_if_full(client, CappedBy::Key(key), max).await?;
    }
    let open = client
        .prepare_cached(&format!(
            "INSERT INTO holds (id, event_id, buyer_id, expires_at, client_ip, api_key_id)
             SELECT $3, $1, $2, now() + make_interval(secs => $4), $5, $6
              WHERE EXISTS (SELECT 1 FROM events WHERE id = $1)
             ON CONFLICT (event_id, buyer_id) WHERE state = 'OPEN' DO NOTHING
             RETURNING {HOLD_COLUMNS}"
        ))
        .await?;
    let opened = client
        .query_opt(
            &open,
            &[
                &event_id,
                &holder.buyer_id,
                &HoldId(Uuid::new_v4()),
                &rules.ttl.as_secs_f64(),
                &holder.client_ip,
                &holder.api_key,
            ],
        )
        .await?;
    match opened {
        Some(row) => Ok(hold_from_row(&row)),
        // The buyer's other request opened one first; it has committed
        // (the insert waited for it), so it can be locked now. Or there is
        // no such event: the insert is guarded rather than left to fail on
        // the foreign key, because a failed statement aborts the
        // transaction and the statements sent with this one (the event's
        // lock, say, asking why it found nothing) would fail with it.
        None => lock_open(client, event_id, holder.buyer_id)
            .await?
            .ok_or(AppError::NotFound(Missing::Event)),
    }
}

/// What a cap on live holds counts: one client address's, or one API
/// key's (all its customers').
#[derive(Clone, Copy)]
enum CappedBy {
    Address(IpAddr),
    Key(ApiKeyId),
}

/// Refuses when `by` already has `max` live holds. A hold checked out and
/// waiting for its payment counts until its deadline: its seats are still
/// held, and checking out must not be a way round the cap. Opening a hold takes an
/// advisory lock on the address (or key), so concurrent requests can't all
/// slip under the cap together. Two statements, not one: under READ
/// COMMITTED a statement's snapshot is taken when it starts, so a count in
/// the statement that waited for the lock would miss the holds committed
/// while it waited.
async fn refuse_if_full(client: &impl GenericClient, by: CappedBy, max: u32) -> AppResult<()> {
    let (lock, count) = match by {
        CappedBy::Address(_) => (
            "SELECT pg_advisory_xact_lock(hashtextextended(host($1::inet), 7))",
            "client_ip = $1",
        ),
        CappedBy::Key(_) => (
            "SELECT pg_advisory_xact_lock(hashtextextended('api_key:' || $1::bigint, 7))",
            "api_key_id = $1",
        ),
    };
    let param: &(dyn tokio_postgres::types::ToSql + Sync) = match &by {
        CappedBy::Address(ip) => ip,
        CappedBy::Key(key) => key,
    };
    let lock = client.prepare_cached(lock).await?;
    client.execute(&lock, &[param]).await?;
    let count = client
        .prepare_cached(&format!(
            "SELECT count(*) AS live,
                    ceil(extract(epoch FROM min(expires_at) - now()))::bigint AS first_expiry
               FROM holds
              WHERE {count} AND state IN ('OPEN', 'PAYING') AND expires_at > now()"
        ))
        .await?;
    let row = client.query_one(&count, &[param]).await?;
    let live: i64 = row.get("live");
    if live >= i64::from(max) {
        let retry: Option<i64> = row.get("first_expiry");
        return Err(AppError::TooManyRequests {
            limit: match by {
                CappedBy::Address(_) => Limit::HoldsFromNetwork { live },
                CappedBy::Key(_) => Limit::HoldsForKey { live },
            },
            retry_after_secs: retry.unwrap_or(1).max(1) as u64,
        });
    }
    Ok(())
}

/// Adds `seat_ids` (sorted, distinct) to the buyer's hold for the event, all
/// or nothing. On any refusal the transaction rolls back, so a failed
/// attempt neither creates a hold nor changes its expiry.
pub async fn claim_seats(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    seat_ids: &[SeatId],
    rules: HoldRules,
) -> AppResult<HoldSummary> {
    claim(pool, event_id, holder, &Cart::seats(seat_ids), rules).await
}

/// Adds the cart to the buyer's hold for the event, all or nothing: GA
/// areas first, by id, then seats by id, the order every claim keeps.
pub async fn claim(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    cart: &Cart,
    rules: HoldRules,
) -> AppResult<HoldSummary> {
    // The fixed order, whatever order the caller listed things in; an area
    // named twice is one request for the sum.
    let mut ga: Vec<GaRequest> = Vec::with_capacity(cart.ga.len());
    let mut requested = cart.ga.clone();
    requested.sort_by_key(|r| r.area_id);
    for request in requested {
        match ga.last_mut() {
            Some(last) if last.area_id == request.area_id => {
                last.quantity = last.quantity.saturating_add(request.quantity)
            }
            _ => ga.push(request),
        }
    }
    let cart = &Cart {
        seat_ids: cart.seat_ids.clone(),
        ga,
    };
    let outcome = counting_request(pool, holder, || {
        claim_once(pool, event_id, holder, cart, rules)
    })
    .await;
    match &outcome {
        Ok((_, reclaimed)) => {
            metrics::counter!(obs::SEATS_CLAIMED).increment(cart.seat_ids.len() as u64);
            metrics::counter!(obs::SEATS_EXPIRED_RECLAIMED).increment(*reclaimed);
        }
        Err(AppError::SeatsUnavailable { .. }) => {
            metrics::counter!(obs::CLAIMS_CONFLICTED).increment(1)
        }
        Err(_) => {}
    }
    outcome.map(|(summary, _)| summary)
}

/// One attempt. Statements that don't depend on each other's answers are
/// sent together, in the order they must run (PostgreSQL runs a
/// connection's statements one after another): the sale check, the seat
/// ids and the buyer's hold in one round trip; the claim and the read of
/// what the hold now has in another.
async fn claim_once(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    cart: &Cart,
    rules: HoldRules,
) -> AppResult<(HoldSummary, u64)> {
    super::in_transaction(pool, async |tx| {
        claim_in(tx, event_id, holder, cart, rules).await
    })
    .await
}

async fn claim_in(
    tx: &impl GenericClient,
    event_id: EventId,
    holder: Holder,
    cart: &Cart,
    rules: HoldRules,
) -> AppResult<(HoldSummary, u64)> {
    let seat_ids = &cart.seat_ids;
    // One round trip: the event's lock, then the hold's (the fixed order).
    let flight: &[&str] = match cart.ga.is_empty() {
        true => &[
            &events::LOCK_ON_SALE,
            seats::IDS_IN_EVENT,
            CLOSE_LAPSED,
            &LOCK_OPEN,
        ],
        false => &[
            &events::LOCK_ON_SALE,
            ga::MUST_BELONG,
            seats::IDS_IN_EVENT,
            CLOSE_LAPSED,
            &LOCK_OPEN,
        ],
    };
    super::prepare_together(tx, flight).await?;
    let (generic, spent, on_sale, areas_known, known, hold) = tokio::join!(
        super::generic_plans(tx),
        refuse_if_spent(tx, &holder),
        events::lock_on_sale_for_claim(tx, event_id),
        async {
            match cart.ga.is_empty() {
                true => Ok(()),
                false => ga::must_belong(tx, event_id, &cart.ga).await,
            }
        },
        seats::ids_in_event(tx, event_id, seat_ids),
        async {
            let (closed, open) = tokio::join!(
                close_lapsed(tx, event_id, holder.buyer_id),
                lock_open(tx, event_id, holder.buyer_id)
            );
            closed.and(open)
        },
    );
    generic?;
    spent?;
    let waitlist_waiting = on_sale?;
    areas_known?;
    let known = known?;
    if known.len() != seat_ids.len() {
        let unknown: Vec<SeatId> = seat_ids
            .iter()
            .filter(|id| !known.contains(id))
            .copied()
            .collect();
        return Err(AppError::NotFound(Missing::Seats(unknown)));
    }
    let hold = match hold? {
        Some(hold) => hold,
        None => open_new(tx, event_id, holder, rules).await?,
    };
    if !cart.ga.is_empty() {
        ga::claim(tx, event_id, hold.id, hold.expires_at, &cart.ga).await?;
    }
    // One round trip; none depends on another's answer. The request's
    // count goes last: its counters' locks are then held only to the commit.
    let (claimed, ga, counted) = tokio::join!(
        seats::claim_into_hold(
            tx,
            event_id,
            hold.id,
            hold.expires_at,
            seat_ids,
            waitlist_waiting
        ),
        ga::held_by(tx, hold.id),
        count_request(tx, &holder)
    );
    // In the order sent: a failed statement fails those after it.
    let claimed = claimed?;
    let ga = ga?;
    counted?;
    if claimed.claimed.ids.len() != seat_ids.len() {
        let refused = seats::refused(seat_ids, &claimed.claimed.ids);
        if waitlist_waiting && super::waitlist_first::keeps_any(tx, event_id, &refused).await? {
            return Err(AppError::Conflict(Conflict::WaitlistFirst));
        }
        return Err(AppError::SeatsUnavailable { seat_ids: refused });
    }
    let summary = HoldSummary {
        hold_id: hold.id,
        expires_at: hold.expires_at,
        seat_ids: claimed.held.iter().map(|seat| seat.id).collect(),
        hold,
        seats: claimed.held,
        ga,
    };
    refuse_if_over(&summary, 0, rules.max_seats)?;
    Ok((summary, claimed.claimed.reclaimed))
}

/// Any buyer's hold, locked for this transaction (for staff).
pub(super) async fn lock_by_id(client: &impl GenericClient, hold_id: HoldId) -> AppResult<Hold> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {HOLD_COLUMNS} FROM holds WHERE id = $1 FOR UPDATE"
        ))
        .await?;
    let row = client.query_opt(&statement, &[&hold_id]).await?;
    row.as_ref()
        .map(hold_from_row)
        .ok_or_else(|| AppError::NotFound(Missing::Hold))
}

/// Closes the hold as released by staff, so its buyer can be told why.
pub(super) async fn close_by_staff(
    client: &impl GenericClient,
    hold_id: HoldId,
    actor: Actor,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE holds SET state = 'RELEASED', closed_at = now(), released_by_staff = $2,
                    released_by_key = $3
              WHERE id = $1 AND state IN ('OPEN', 'EXPIRED')",
        )
        .await?;
    client
        .execute(
            &statement,
            &[&hold_id, &actor.staff_id(), &actor.api_key_id()],
        )
        .await?;
    Ok(())
}

pub(super) const CLOSE_OPEN_HOLD: &str =
    "UPDATE holds SET state = $2, closed_at = now() WHERE id = $1 AND state = 'OPEN'";

async fn close(client: &impl GenericClient, hold_id: HoldId, state: &str) -> AppResult<()> {
    let statement = client.prepare_cached(CLOSE_OPEN_HOLD).await?;
    client.execute(&statement, &[&hold_id, &state]).await?;
    Ok(())
}

pub(super) async fn mark_purchased(client: &impl GenericClient, hold_id: HoldId) -> AppResult<()> {
    close(client, hold_id, "PURCHASED").await
}

/// Refuses a hold that is no longer open and live: bought, released, or
/// past its expiry.
pub(super) fn refuse_unless_live(hold: &Hold) -> AppResult<()> {
    match hold.state {
        HoldState::Purchased => Err(AppError::Conflict(Conflict::AlreadyPurchased)),
        HoldState::Released => Err(AppError::Conflict(Conflict::HoldReleased)),
        HoldState::Paying => Err(AppError::Conflict(Conflict::HoldBeingPaid)),
        _ if !hold.live => Err(AppError::HoldExpired),
        _ => Ok(()),
    }
}

pub(super) fn refuse_if_purchased(hold: &Hold) -> AppResult<()> {
    match hold.state {
        HoldState::Purchased => return Err(AppError::Conflict(Conflict::AlreadyPurchased)),
        HoldState::Paying => return Err(AppError::Conflict(Conflict::HoldBeingPaid)),
        _ => {}
    }
    Ok(())
}

/// Puts one seat of the buyer's hold back on sale. The hold closes when its
/// last seat goes, so an empty hold never keeps a timer running.
pub async fn release_seat(
    pool: &Pool,
    hold_id: HoldId,
    seat_id: SeatId,
    buyer_id: BuyerId,
) -> AppResult<()> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let hold = lock_for_buyer_or_404(&tx, hold_id, buyer_id).await?;
        refuse_if_purchased(&hold)?;
        // One statement, not three (release, count what is left, close):
        // the hold's lock, taken above, keeps the count true.
        if !seats::release_one_closing_empty(&tx, hold.id, seat_id).await? {
            return Err(AppError::NotFound(Missing::SeatInHold));
        }
        tx.commit().await?;
        Ok(())
    })
    .await
}

/// Gives the buyer's tickets in one GA area back. The hold closes when it
/// has nothing left, as when its last seat goes. Returns how many were the buyer's.
pub async fn release_ga(
    pool: &Pool,
    hold_id: HoldId,
    area_id: AreaId,
    buyer_id: BuyerId,
) -> AppResult<i64> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let hold = lock_for_buyer_or_404(&tx, hold_id, buyer_id).await?;
        refuse_if_purchased(&hold)?;
        let Some(held) = ga::held_by(&tx, hold.id)
            .await?
            .into_iter()
            .find(|h| h.area_id == area_id)
        else {
            return Err(AppError::NotFound(Missing::TicketInHold));
        };
        ga::give_back(&tx, area_id, ga::GiveBack::LapsedAndHold(hold.id)).await?;
        if is_empty(&tx, hold.id).await? {
            close(&tx, hold.id, "RELEASED").await?;
        }
        tx.commit().await?;
        Ok(i64::from(held.quantity))
    })
    .await
}

/// Whether the hold has no seats and no GA tickets left.
pub(super) async fn is_empty(client: &impl GenericClient, hold_id: HoldId) -> AppResult<bool> {
    Ok(seats::held_by(client, hold_id).await?.is_empty()
        && ga::held_by(client, hold_id).await?.is_empty())
}

/// Puts every seat of the buyer's hold back on sale and closes it. Returns
/// the seats released (none if it was already closed).
pub async fn release_hold(pool: &Pool, hold_id: HoldId, buyer_id: BuyerId) -> AppResult<SeatIds> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let hold = lock_for_buyer_or_404(&tx, hold_id, buyer_id).await?;
        refuse_if_purchased(&hold)?;
        ga::release_all(&tx, hold.id).await?;
        let released = seats::release_all(&tx, hold.id).await?;
        close(&tx, hold.id, "RELEASED").await?;
        tx.commit().await?;
        Ok(released)
    })
    .await
}

/// The buyer's most recent hold for the event, in any state.
pub async fn latest_for_buyer(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {HOLD_COLUMNS} FROM holds
              WHERE event_id = $1 AND buyer_id = $2
              ORDER BY created_at DESC LIMIT 1"
        ))
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id, &buyer_id])
        .await?;
    Ok(row.as_ref().map(hold_from_row))
}

/// How close to expiry a hold must be before it may be extended.
pub const EXTENSION_WINDOW_SECS: i64 = 120;

/// "Need more time?": pushes the buyer's live hold (and its seats) back by
/// `extra`, once per hold, only in its last two minutes.
pub async fn extend(
    pool: &Pool,
    hold_id: HoldId,
    buyer_id: BuyerId,
    extra: Duration,
) -> AppResult<HoldSummary> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let hold = lock_for_buyer_or_404(&tx, hold_id, buyer_id).await?;
        refuse_if_purchased(&hold)?;
        if !hold.live {
            return Err(AppError::HoldExpired);
        }
        if hold.extended {
            return Err(AppError::Conflict(Conflict::AlreadyExtended));
        }
        let extended = tx
            .query_opt(
                "UPDATE holds SET expires_at = expires_at + make_interval(secs => $2), extended = true
                  WHERE id = $1 AND expires_at - now() <= make_interval(secs => $3)
              RETURNING expires_at",
                &[&hold.id, &extra.as_secs_f64(), &(EXTENSION_WINDOW_SECS as f64)],
            )
            .await?;
        let Some(row) = extended else {
            return Err(AppError::Conflict(Conflict::TooEarlyToExtend {
                window_secs: EXTENSION_WINDOW_SECS,
            }));
        };
        let expires_at: OffsetDateTime = row.get(0);
        tx.execute(
            "UPDATE seats SET held_until = $2 WHERE hold_id = $1",
            &[&hold.id, &expires_at],
        )
        .await?;
        ga::extend(&tx, hold.id, expires_at).await?;
        let summary = summary(&tx, &Hold { expires_at, ..hold }).await?;
        tx.commit().await?;
        Ok(summary)
    })
    .await
}
