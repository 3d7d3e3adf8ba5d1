//! Database chores for the load harness (seatmap-bench): never used by the
//! app itself.

use std::time::{Duration, Instant};

use seatmap::db::venues::{self, EventPlan};
use seatmap::db::{GenericClient, Pool};
use seatmap::domain::ids::EventId;
use seatmap::domain::venue;
use seatmap::error::AppResult;

/// How long making the arena event took, step by step.
#[derive(Debug, Clone, Copy)]
pub struct ArenaSetup {
    pub event_id: i64,
    pub parse: Duration,
    pub import: Duration,
    pub create: Duration,
}

/// Imports the shipped arena layout as a venue (or reuses it) and creates
/// an event of it on sale now, as staff would: the path whose speed the
/// issue asks about.
pub async fn arena_event(pool: &Pool) -> AppResult<ArenaSetup> {
    let started = Instant::now();
    let layout = venue::examples::arena()?;
    let parse = started.elapsed();
    let started = Instant::now();
    let venue_id = venues::import_or_reuse(pool, &layout).await?;
    let import = started.elapsed();
    let started = Instant::now();
    let event_id = event_on_sale(pool, venue_id, &layout, "Benchmark Arena", 5000).await?;
    Ok(ArenaSetup {
        event_id: event_id.0,
        parse,
        import,
        create: started.elapsed(),
    })
}

/// The shipped concert hall (1,500 seats and a standing floor of 500) as
/// an event on sale now. Returns the event and its GA area with capacity.
pub async fn concert_hall_event(pool: &Pool) -> AppResult<(i64, i64, i32)> {
    let layout = venue::examples::concert_hall()?;
    let venue_id = venues::import_or_reuse(pool, &layout).await?;
    let event_id = event_on_sale(pool, venue_id, &layout, "Benchmark Hall", 3000).await?;
    let row = pool
        .get()
        .await?
        .query_one(
            "SELECT id, capacity FROM ga_areas WHERE event_id = $1 ORDER BY id LIMIT 1",
            &[&event_id],
        )
        .await?;
    Ok((event_id.0, row.get(0), row.get(1)))
}

/// An event of the venue, on sale now, every tier at `price_cents`.
async fn event_on_sale(
    pool: &Pool,
    venue_id: seatmap::domain::ids::VenueId,
    layout: &venue::VenueLayout,
    name: &str,
    price_cents: i32,
) -> AppResult<EventId> {
    venues::create_event(
        pool,
        &EventPlan {
            venue_id,
            name: name.into(),
            starts_at: time::OffsetDateTime::now_utc() + time::Duration::days(30),
            on_sale_at: None,
            prices: layout
                .tiers
                .iter()
                .map(|t| (t.code.clone(), price_cents))
                .collect(),
            currency: "EUR".into(),
            // The bench sells at once.
            published: true,
        },
    )
    .await
}

impl ArenaSetup {
    pub fn describe(&self) -> String {
        format!(
            "20,000-seat arena from static/layouts/arena-20000.json: parsed and validated in {} ms, \
             venue stored in {} ms, event created in {} ms",
            self.parse.as_millis(),
            self.import.as_millis(),
            self.create.as_millis()
        )
    }
}

/// Puts every seat of the event back on sale, empties every GA area, and
/// forgets every hold, order, session and rate-limit window, so each
/// scenario starts from the same place.
pub async fn empty_event(client: &impl GenericClient, event_id: EventId) -> AppResult<()> {
    client
        .execute(
            "UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL, order_id = NULL
              WHERE event_id = $1 AND status <> 'AVAILABLE'",
            &[&event_id],
        )
        .await?;
    // General admission, in every event: tickets first (they name holds
    // and orders), then the counters they added up to.
    client.execute("DELETE FROM ga_tickets", &[]).await?;
    client
        .execute(
            "UPDATE ga_areas SET held = 0, sold = 0 WHERE held + sold > 0",
            &[],
        )
        .await?;
    // Orders last: their tickets, mail and lines name them.
    client.execute("DELETE FROM tickets", &[]).await?;
    client.execute("DELETE FROM outbox", &[]).await?;
    client.execute("DELETE FROM order_lines", &[]).await?;
    client.execute("DELETE FROM orders", &[]).await?;
    client
        .execute(
            "DELETE FROM holds h WHERE NOT EXISTS (SELECT 1 FROM seats s WHERE s.hold_id = h.id)",
            &[],
        )
        .await?;
    client.execute("DELETE FROM tower_sessions", &[]).await?;
    client.execute("DELETE FROM rate_limits", &[]).await?;
    client.batch_execute("VACUUM ANALYZE seats").await?;
    Ok(())
}

/// A stray transaction (a stuck batch job, say) sitting on the row locks of
/// the event's first `seats` seats until `release` ends it.
pub async fn lock_seats_for_a_while(
    client: &mut tokio_postgres::Client,
    event_id: EventId,
    seats: i64,
    release: impl std::future::Future<Output = ()>,
) -> AppResult<()> {
    let tx = client.transaction().await?;
    tx.query(
        "SELECT id FROM seats WHERE event_id = $1 ORDER BY id LIMIT $2 FOR UPDATE",
        &[&event_id, &seats],
    )
    .await?;
    release.await;
    tx.rollback().await?;
    Ok(())
}

/// A pgbench script doing what a pick does, in SQL alone: open a hold,
/// claim one random seat with the same conditional UPDATE as
/// `seats::claim` (lock in id order, lapsed holds count as free), commit;
/// then release it. With the live feed's stamp, as the app does it; see
/// [`ceiling_script`] for the same without.
pub const PGBENCH_CLAIM_SCRIPT: &str = "\\set seat random(:lo, :hi)
\\set h random(1, 1000000000000)
BEGIN;
INSERT INTO holds (id, event_id, buyer_id, expires_at) VALUES (md5(:h::text)::uuid, :event, gen_random_uuid(), now() + interval '10 minutes');
WITH target AS (SELECT id FROM seats WHERE event_id = :event AND id = :seat AND (status = 'AVAILABLE' OR (status = 'HELD' AND held_until < now())) ORDER BY id FOR UPDATE) UPDATE seats s SET status = 'HELD', hold_id = md5(:h::text)::uuid, held_until = now() + interval '10 minutes', changed_xid = pg_current_xact_id() FROM target WHERE s.id = target.id;
COMMIT;
BEGIN;
UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL, changed_xid = pg_current_xact_id() WHERE id = :seat AND hold_id = md5(:h::text)::uuid;
UPDATE holds SET state = 'RELEASED', closed_at = now() WHERE id = md5(:h::text)::uuid;
COMMIT;
";

/// A sale as the app makes one, for pgbench: a claim of one random seat in
/// its own transaction, then the purchase (order, seat sold with its line,
/// hold closed) in another. `{after_sale}` is where the purchase's ticket
/// and outbox writes go (see [`sale_script`]).
const PGBENCH_SALE_SCRIPT: &str = "\\set seat random(:lo, :hi)
\\set h random(1, 1000000000000)
BEGIN;
INSERT INTO holds (id, event_id, buyer_id, expires_at) VALUES (md5(:h::text)::uuid, :event, gen_random_uuid(), now() + interval '10 minutes');
WITH target AS (SELECT id FROM seats WHERE event_id = :event AND id = :seat AND (status = 'AVAILABLE' OR (status = 'HELD' AND held_until < now())) ORDER BY id FOR UPDATE) UPDATE seats s SET status = 'HELD', hold_id = md5(:h::text)::uuid, held_until = now() + interval '10 minutes', changed_xid = pg_current_xact_id() FROM target WHERE s.id = target.id;
COMMIT;
BEGIN;
INSERT INTO orders (id, event_id, hold_id, buyer_id, buyer_name, buyer_email) VALUES (md5(:h::text || 'order')::uuid, :event, md5(:h::text)::uuid, gen_random_uuid(), 'Bench Buyer', 'bench@example.com');
WITH sold AS (UPDATE seats SET status = 'SOLD', order_id = md5(:h::text || 'order')::uuid, hold_id = NULL, held_until = NULL, changed_xid = pg_current_xact_id() WHERE hold_id = md5(:h::text)::uuid AND held_until > now() RETURNING id, tier_id) INSERT INTO order_lines (order_id, seat_id, price_cents) SELECT md5(:h::text || 'order')::uuid, sold.id, t.price_cents FROM sold JOIN price_tiers t ON t.id = sold.tier_id;
UPDATE holds SET state = 'PURCHASED', closed_at = now() WHERE id = md5(:h::text)::uuid AND state = 'OPEN';
{after_sale}COMMIT;
";

/// The sale for pgbench, with the purchase's ticket and outbox writes
/// (`with_tickets`, as the app does now) or without them (the purchase as
/// it was before tickets: the ceiling the new writes are measured against).
/// Codes here are 32 letters of md5 output in the ticket alphabet; the
/// app's come from its CSPRNG.
pub fn sale_script(with_tickets: bool) -> String {
    let after_sale = if with_tickets {
        let issue = seatmap::db::tickets::ISSUE
            .replace("$1", "md5(:h::text || 'order')::uuid")
            .replace("$2", ":event")
            .replace(
                "$3::text[]",
                "ARRAY[translate(upper(md5(random()::text) || md5(random()::text)), '0189', 'WXYZ')]::text[]",
            )
            .replace("c.code", "left(c.code, 32)");
        let queue = seatmap::db::outbox::QUEUE_ORDER_CONFIRMATION
            .replace("$1", "'<' || md5(:h::text) || '@bench>'")
            .replace("$2", "md5(:h::text || 'order')::uuid")
            .replace("$3", "'bench@example.com'")
            .replace("$4", ":event");
        // pgbench wants each statement on one line; the app's SQL carries
        // `--` comments, which would swallow the rest of that line.
        let one_line = |sql: String| {
            sql.lines()
                .map(|line| line.split("--").next().unwrap_or_default())
                .flat_map(str::split_whitespace)
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!("{};\n{};\n", one_line(issue), one_line(queue))
    } else {
        String::new()
    };
    PGBENCH_SALE_SCRIPT.replace("{after_sale}", &after_sale)
}

/// [`PGBENCH_CLAIM_SCRIPT`] without the live feed's stamp: with the
/// trigger off too (see [`set_live_feed_triggers`]), the claim SQL with no
/// live-feed machinery at all, the physical ceiling.
pub fn ceiling_script() -> String {
    PGBENCH_CLAIM_SCRIPT.replace(", changed_xid = pg_current_xact_id()", "")
}

/// Turns the live feed's trigger on the seats (the transaction stamp for
/// changes the statement didn't stamp itself) off or on. Never used by
/// the app.
pub async fn set_live_feed_triggers(client: &impl GenericClient, on: bool) -> AppResult<()> {
    let verb = if on { "ENABLE" } else { "DISABLE" };
    client
        .batch_execute(&format!("ALTER TABLE seats {verb} TRIGGER seats_stamp"))
        .await?;
    Ok(())
}

/// Gives the event the offer the offer-cost scenario buys with (Adult at
/// each tier's price, Child at half, the code BENCH for 10 % off, a €1.50
/// fee and 19 % VAT included), or takes it away. Never used by the app.
pub async fn set_offer(client: &impl GenericClient, event: i64, on: bool) -> AppResult<()> {
    client
        .execute("DELETE FROM promo_codes WHERE event_id = $1", &[&event])
        .await?;
    client
        .execute("DELETE FROM price_types WHERE event_id = $1", &[&event])
        .await?;
    client
        .execute(
            "UPDATE events SET booking_fee_cents = 0, tax_rate = NULL WHERE id = $1",
            &[&event],
        )
        .await?;
    if !on {
        return Ok(());
    }
    client
        .batch_execute(&format!(
            "INSERT INTO price_types (event_id, code, labels, sort_order)
             VALUES ({event}, 'adult', '{{\"en\": \"Adult\"}}', 0),
                    ({event}, 'child', '{{\"en\": \"Child\"}}', 1);
             INSERT INTO price_type_prices (event_id, price_type_id, tier_id, price_cents)
             SELECT {event}, pt.id, t.id,
                    CASE pt.code WHEN 'adult' THEN t.price_cents ELSE t.price_cents / 2 END
               FROM price_types pt CROSS JOIN price_tiers t
              WHERE pt.event_id = {event} AND t.event_id = {event};
             INSERT INTO promo_codes (event_id, code, percent_off) VALUES ({event}, 'BENCH', 10);
             UPDATE events SET booking_fee_cents = 150, tax_rate = 19, tax_included = true
              WHERE id = {event};"
        ))
        .await?;
    Ok(())
}
