//! The waiting room in PostgreSQL (migration V31): an event's queue
//! settings, the joins, the admission batches, and what each instance reads
//! once a second to answer waiting buyers from memory.

use time::OffsetDateTime;
use uuid::Uuid;

use super::{GenericClient, Pool};
use crate::domain::ids::EventId;
use crate::error::{AppError, AppResult, Missing};

/// What staff set for an event's queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSpec {
    pub opens_at: OffsetDateTime,
    /// None: "auto".
    pub admit_per_minute: Option<i32>,
    pub window_minutes: i32,
    pub proof_of_work: bool,
}

/// An event's queue as it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueState {
    pub event_id: EventId,
    pub spec: QueueSpec,
    pub pow_bits: i32,
    /// Admitted so far.
    pub admitted: i64,
    /// Joined so far.
    pub joined: i64,
    /// An "auto" queue's target of buyers shopping at once, once its worker
    /// has set one.
    pub auto_target: Option<i32>,
    /// The event's seats and general-admission places: what a client's
    /// share of the house is a share of.
    pub house: i64,
}

/// How an "auto" queue's target moves this tick (see `domain::queue_pace`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutoStep {
    /// The target a queue starts from.
    pub start_target: i64,
    /// The factor it moves by.
    pub growth: f64,
}

const STATE_COLUMNS: &str = "q.event_id, q.opens_at, q.admit_per_minute, q.window_minutes,
       q.proof_of_work, q.pow_bits, q.admitted, q.auto_target,
       (SELECT count(*) FROM queue_joins j WHERE j.event_id = q.event_id) AS joined,
       (SELECT count(*) FROM seats s WHERE s.event_id = q.event_id)
         + coalesce((SELECT sum(a.capacity) FROM ga_areas a WHERE a.event_id = q.event_id), 0)
         AS house";

fn state_of(row: &tokio_postgres::Row) -> QueueState {
    QueueState {
        event_id: row.get("event_id"),
        spec: QueueSpec {
            opens_at: row.get("opens_at"),
            admit_per_minute: row.get("admit_per_minute"),
            window_minutes: row.get("window_minutes"),
            proof_of_work: row.get("proof_of_work"),
        },
        pow_bits: row.get("pow_bits"),
        admitted: row.get("admitted"),
        joined: row.get("joined"),
        auto_target: row.get("auto_target"),
        house: row.get::<_, i64>("house"),
    }
}

/// Turns the queue on, or changes a running one's settings (its joins and
/// admissions stay).
pub async fn put(pool: &Pool, event_id: EventId, spec: &QueueSpec) -> AppResult<QueueState> {
    let client = pool.get().await?;
    if !super::events::exists(&client, event_id).await? {
        return Err(AppError::NotFound(Missing::Event));
    }
    let sql = format!(
        "WITH put AS (
           INSERT INTO event_queues (event_id, opens_at, admit_per_minute, window_minutes, proof_of_work)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (event_id) DO UPDATE
              SET opens_at = EXCLUDED.opens_at, admit_per_minute = EXCLUDED.admit_per_minute,
                  window_minutes = EXCLUDED.window_minutes, proof_of_work = EXCLUDED.proof_of_work,
                  admit_clock = NULL, updated_at = now()
           RETURNING *)
         SELECT {} FROM put q",
        STATE_COLUMNS
    );
    let row = client
        .query_one(
            &sql,
            &[
                &event_id,
                &spec.opens_at,
                &spec.admit_per_minute,
                &spec.window_minutes,
                &spec.proof_of_work,
            ],
        )
        .await?;
    Ok(state_of(&row))
}

/// Turns the queue off (its joins go with it); false if there was none.
pub async fn delete(pool: &Pool, event_id: EventId) -> AppResult<bool> {
    let client = pool.get().await?;
    let deleted = client
        .execute("DELETE FROM event_queues WHERE event_id = $1", &[&event_id])
        .await?;
    Ok(deleted > 0)
}

pub async fn get(client: &impl GenericClient, event_id: EventId) -> AppResult<Option<QueueState>> {
    let sql = format!("SELECT {STATE_COLUMNS} FROM event_queues q WHERE q.event_id = $1");
    Ok(client
        .query_opt(&sql, &[&event_id])
        .await?
        .map(|r| state_of(&r)))
}

/// Which joins (`j`) count as buyers shopping, the load "auto" keeps near
/// its target: admitted, the window not over, and not done: no claim yet
/// (still choosing), or a hold on the event still open (checking out). A
/// buyer who bought, or whose hold ran out or was let go, no longer
/// loads the house.
macro_rules! shopping {
    () => {
        "j.admitted_until > now()
         AND (j.buyer_id IS NULL
              OR EXISTS (SELECT 1 FROM holds h
                          WHERE h.event_id = j.event_id AND h.buyer_id = j.buyer_id
                            AND h.state = 'OPEN' AND h.expires_at > now()))"
    };
}

/// A join as the queue recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Joined {
    pub order_key: i64,
    pub early: bool,
    /// Admitted at once (an "auto" queue with no line).
    pub admitted: bool,
}

/// Who joins, as joins are counted: a browser's network (its address, or
/// its /64 for IPv6), or an API key (all its customers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joiner {
    Network(std::net::IpAddr),
    Key(crate::domain::ids::ApiKeyId),
}

impl Joiner {
    fn columns(
        self,
    ) -> (
        Option<std::net::IpAddr>,
        Option<crate::domain::ids::ApiKeyId>,
    ) {
        match self {
            Joiner::Network(ip) => (Some(ip), None),
            Joiner::Key(key) => (None, Some(key)),
        }
    }
}

/// Takes the joiner's lock on the event's queue (held to the commit: the
/// joins of one client are counted and recorded one at a time) and counts
/// its joins in the last minute. The lock is its own statement, so the
/// count sees every join that committed while it was awaited.
async fn lock_and_count_recent_joins(
    tx: &impl GenericClient,
    event_id: EventId,
    joiner: Joiner,
) -> AppResult<u64> {
    let (network, key) = joiner.columns();
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(
                    'queue join ' || $1::bigint || ' ' || coalesce(host($2::inet), 'key ' || $3::bigint), 17))",
        &[&event_id, &network, &key],
    )
    .await?;
    recent_joins(tx, event_id, joiner).await
}

/// The joiner's joins of the event's queue in the last minute (a sliding
/// minute: each join counts for sixty seconds from its own time).
pub async fn recent_joins(
    client: &impl GenericClient,
    event_id: EventId,
    joiner: Joiner,
) -> AppResult<u64> {
    let (network, key) = joiner.columns();
    let statement = client
        .prepare_cached(
            "SELECT count(*) FROM queue_joins
              WHERE event_id = $1 AND joined_at > now() - interval '1 minute'
                AND (client_network = $2 OR api_key_id = $3)",
        )
        .await?;
    let n: i64 = client
        .query_one(&statement, &[&event_id, &network, &key])
        .await?
        .get(0);
    Ok(n.max(0) as u64)
}

/// Why a join was not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinRefused {
    /// The event has no queue.
    NoQueue,
    /// The proof of work's challenge was used by another join.
    ChallengeUsed,
    /// Asked to join only if admitted at once, and it would have waited.
    WouldWait,
    /// The joiner has joined often in the last minute: this join needs a
    /// proof of work of `bits` (it brought none, or an easier one).
    NeedsWork { bits: u32 },
}

/// A join as the client asked for it: who, with what proof of work (the
/// challenge's id and its bits, once checked), and how.
#[derive(Debug, Clone, Copy)]
pub struct JoinAsk {
    pub event_id: EventId,
    pub join_id: Uuid,
    pub joiner: Joiner,
    pub solved: Option<(Uuid, u32)>,
    pub only_if_admitted: bool,
}

/// What joining costs, from the settings and the queue's own.
#[derive(Debug, Clone, Copy)]
pub struct JoinCost {
    /// Joins a client makes in a minute before each needs a proof of work.
    pub free_per_minute: u32,
    /// The queue's puzzle size (`pow_bits`), and whether it always asks.
    pub base_bits: u32,
    pub always: bool,
    pub start_target: i64,
    pub first_claim: std::time::Duration,
}

/// Joins the queue if the joiner's proof of work is enough for its count of
/// joins in the last minute (`domain::queue::join_bits`): counted and
/// recorded in one transaction, under the joiner's lock, so a burst of
/// joins at once can't all pass as the first.
pub async fn join_counted(
    pool: &Pool,
    ask: JoinAsk,
    cost: JoinCost,
) -> AppResult<Result<Joined, JoinRefused>> {
    super::in_transaction(pool, async |tx| {
        let recent = lock_and_count_recent_joins(tx, ask.event_id, ask.joiner).await?;
        let bits = crate::domain::queue::join_bits(
            recent,
            cost.free_per_minute,
            cost.base_bits,
            cost.always,
        );
        let brought = ask.solved.map_or(0, |(_, bits)| bits);
        if bits > 0 && brought < bits {
            return Ok(Err(JoinRefused::NeedsWork { bits }));
        }
        join(
            tx,
            ask.event_id,
            ask.join_id,
            ask.solved.map(|(id, _)| id),
            cost.start_target,
            ask.only_if_admitted,
            ask.joiner,
            cost.first_claim,
        )
        .await
    })
    .await
}

/// The proof of work the joiner's next join of the event's queue needs now
/// (0: none), for the challenge it is given.
pub async fn join_bits_now(
    client: &impl GenericClient,
    event_id: EventId,
    joiner: Joiner,
    cost: JoinCost,
) -> AppResult<u32> {
    let recent = recent_joins(client, event_id, joiner).await?;
    Ok(crate::domain::queue::join_bits(
        recent,
        cost.free_per_minute,
        cost.base_bits,
        cost.always,
    ))
}

/// Joins the queue: one statement. Before the opening the join's place
/// is a random key below every later join's; after it, its sequence
/// number. An "auto" queue that has opened, with nobody waiting and fewer
/// shopping than its target (`start_target` until its worker set one),
/// admits the join at once: with no line
/// there is nothing to wait for. `only_if_admitted` (a page view, which
/// must not fill the line with places nobody asked for) joins only then.
/// An admission lasts `first_claim` until its first claim binds it (then
/// the queue's window, from the admission): one nobody uses lapses soon.
#[allow(clippy::too_many_arguments)]
async fn join(
    client: &impl GenericClient,
    event_id: EventId,
    join_id: Uuid,
    challenge: Option<Uuid>,
    start_target: i64,
    only_if_admitted: bool,
    joiner: Joiner,
    first_claim: std::time::Duration,
) -> AppResult<Result<Joined, JoinRefused>> {
    let (network, key) = joiner.columns();
    let statement = client
        .prepare_cached(concat!(
            "WITH q AS (
                SELECT event_id, now() < opens_at AS early, window_minutes,
                       opens_at <= now() AND admit_per_minute IS NULL
                       AND NOT EXISTS (SELECT 1 FROM queue_joins w
                                        WHERE w.event_id = $1 AND w.admitted_at IS NULL)
                       AND (SELECT count(*) FROM queue_joins j WHERE j.event_id = $1 AND ",
            shopping!(),
            ") < coalesce(auto_target::bigint, $4::bigint) AS at_once
                  FROM event_queues WHERE event_id = $1),
                  n AS (SELECT nextval('queue_join_seq') AS seq FROM q),
                  joined AS (
                    INSERT INTO queue_joins (id, event_id, seq, early, order_key, pow_challenge,
                                             admitted_at, admitted_until, client_network, api_key_id)
                    SELECT $2, q.event_id, n.seq, q.early,
                           CASE WHEN q.early THEN -1 - floor(random() * 9.0e18)::bigint ELSE n.seq END,
                           $3,
                           CASE WHEN q.at_once THEN now() END,
                           CASE WHEN q.at_once
                                THEN now() + least(make_interval(mins => q.window_minutes),
                                                   make_interval(secs => $8)) END,
                           $6, $7
                      FROM q, n
                     WHERE q.at_once OR NOT $5
                    ON CONFLICT (pow_challenge) DO NOTHING
                    RETURNING order_key, early, admitted_at IS NOT NULL AS admitted),
                  counted AS (
                    UPDATE event_queues e SET admitted = e.admitted + 1
                     WHERE e.event_id = $1 AND EXISTS (SELECT 1 FROM joined WHERE admitted)
                    RETURNING 1)
             SELECT (SELECT count(*) FROM q) AS queues, (SELECT bool_or(at_once) FROM q) AS at_once,
                    j.order_key, j.early, j.admitted
               FROM (SELECT 1) one LEFT JOIN joined j ON true"
        ))
        .await?;
    let row = client
        .query_one(
            &statement,
            &[
                &event_id,
                &join_id,
                &challenge,
                &start_target,
                &only_if_admitted,
                &network,
                &key,
                &first_claim.as_secs_f64(),
            ],
        )
        .await?;
    let queues: i64 = row.get("queues");
    Ok(match row.get::<_, Option<i64>>("order_key") {
        Some(order_key) => Ok(Joined {
            order_key,
            early: row.get("early"),
            admitted: row.get("admitted"),
        }),
        None if queues == 0 => Err(JoinRefused::NoQueue),
        None if only_if_admitted && !row.get::<_, Option<bool>>("at_once").unwrap_or(false) => {
            Err(JoinRefused::WouldWait)
        }
        None => Err(JoinRefused::ChallengeUsed),
    })
}

/// Admits the next batch of the event's queue, in one statement, if this
/// instance gets the queue's row (`FOR UPDATE SKIP LOCKED`: one worker at
/// a time, whatever the number of instances) and the queue has opened.
/// A fixed rate admits what its allowance allows: a clock that each
/// batch of k moves k minutes / rate on, so a late tick catches up (by up
/// to two seconds, or one batch at a slow rate: a worker that was down
/// doesn't come back with a burst); once the line is empty it is set to
/// now, so time without a line banks nothing. "auto" first moves its
/// target by `auto.growth` (down at once when it is below 1; up only while
/// the target binds, the shoppers within 10 % of it), then tops the buyers
/// shopping (admitted, window not over) up to it. Returns how many were
/// admitted.
/// Admissions last `first_claim` until their first claim (see [`join`]),
/// and the target grows only on buyers who claimed: page views and
/// admissions nobody used don't make the house look busy.
pub async fn admit_batch(
    pool: &Pool,
    event_id: EventId,
    auto: AutoStep,
    first_claim: std::time::Duration,
) -> AppResult<i64> {
    let client = pool.get().await?;
    let statement = client
        .prepare_cached(concat!(
            "WITH q AS (
                SELECT event_id, window_minutes, admit_per_minute,
                       greatest(coalesce(admit_clock, opens_at),
                                now() - make_interval(secs => greatest(2.0, 60.0 / coalesce(admit_per_minute, 60))))
                         AS clock,
                       coalesce(auto_target::bigint, $3::bigint)::float8 AS target,
                       -- Other instances' workers offer batches too: the
                       -- target moves once a second, not once per worker.
                       coalesce(auto_moved_at < now() - interval '900 milliseconds', true) AS may_move
                  FROM event_queues
                 WHERE event_id = $1 AND opens_at <= now()
                   FOR UPDATE SKIP LOCKED),
             paced AS (
                SELECT q.*, s.n AS shoppers,
                       CASE WHEN q.admit_per_minute IS NOT NULL THEN NULL
                            WHEN NOT q.may_move THEN q.target
                            WHEN $2::float8 < 1 THEN greatest($4::bigint, floor(q.target * $2::float8))
                            WHEN s.claimed >= 0.9 * q.target THEN least(1000000, ceil(q.target * $2::float8))
                            ELSE q.target
                       END::bigint AS new_target
                  FROM q, LATERAL (SELECT count(*) AS n,
                                          count(*) FILTER (WHERE j.buyer_id IS NOT NULL) AS claimed
                                     FROM queue_joins j
                                    WHERE j.event_id = q.event_id AND ",
            shopping!(),
            ") s),
             allowance AS (
                SELECT p.*,
                       CASE WHEN p.admit_per_minute IS NULL
                            THEN greatest(0, p.new_target - p.shoppers)
                            ELSE floor(extract(epoch FROM now() - p.clock) * p.admit_per_minute / 60.0)
                       END::bigint AS k
                  FROM paced p),
             picked AS (
                SELECT j.id FROM queue_joins j
                 WHERE j.event_id = $1 AND j.admitted_at IS NULL
                 ORDER BY j.order_key
                 LIMIT coalesce((SELECT k FROM allowance), 0)
                   FOR UPDATE OF j SKIP LOCKED),
             admitted AS (
                UPDATE queue_joins j
                   SET admitted_at = now(),
                       admitted_until = now() + least(make_interval(mins => a.window_minutes),
                                                      make_interval(secs => $5))
                  FROM picked p, allowance a
                 WHERE j.id = p.id
                RETURNING j.id),
             counted AS (SELECT count(*) AS n FROM admitted),
             moved AS (
                UPDATE event_queues e
                   SET admitted = e.admitted + c.n,
                       auto_target = a.new_target,
                       auto_moved_at = CASE WHEN a.may_move AND a.admit_per_minute IS NULL THEN now()
                                            ELSE e.auto_moved_at END,
                       admit_clock = CASE WHEN a.admit_per_minute IS NULL OR c.n < a.k THEN now()
                                          ELSE a.clock + make_interval(secs => c.n * 60.0 / a.admit_per_minute) END
                  FROM allowance a, counted c
                 WHERE e.event_id = a.event_id
                RETURNING e.admitted)
             SELECT (SELECT n FROM counted) AS admitted_now, (SELECT count(*) FROM moved) AS ran"
        ))
        .await?;
    let row = client
        .query_one(
            &statement,
            &[
                &event_id,
                &auto.growth,
                &auto.start_target,
                &crate::domain::queue_pace::MIN_TARGET,
                &first_claim.as_secs_f64(),
            ],
        )
        .await?;
    Ok(row.get("admitted_now"))
}

/// Whether the join admits `buyer` to claim now: admitted, its window not
/// over, and not already used by another buyer. The first buyer to claim
/// with it is bound to it (one statement), and its window then runs the
/// queue's full length from the admission; `None` (a page view) checks
/// without binding.
pub async fn admits(
    client: &impl GenericClient,
    event_id: EventId,
    join_id: Uuid,
    buyer: Option<crate::domain::ids::BuyerId>,
) -> AppResult<bool> {
    let statement = client
        .prepare_cached(
            "WITH found AS (
                SELECT id, buyer_id FROM queue_joins
                 WHERE id = $1 AND event_id = $2 AND admitted_until > now()),
             bound AS (
                -- j.buyer_id, not found's copy: a second buyer racing for
                -- the same admission re-checks it after the first commits
                -- and binds nothing.
                UPDATE queue_joins j
                   SET buyer_id = $3,
                       admitted_until = greatest(j.admitted_until,
                                                 j.admitted_at + make_interval(mins => q.window_minutes))
                  FROM found f, event_queues q
                 WHERE j.id = f.id AND j.buyer_id IS NULL AND $3::uuid IS NOT NULL
                   AND q.event_id = j.event_id
                RETURNING j.id)
             SELECT EXISTS (SELECT 1 FROM bound)
                 OR EXISTS (SELECT 1 FROM found WHERE $3::uuid IS NULL OR buyer_id = $3)",
        )
        .await?;
    Ok(client
        .query_one(&statement, &[&join_id, &event_id, &buyer])
        .await?
        .get(0))
}

/// What an instance reads once a second: every queue's state, and the
/// joins committed since its last read (by transaction id, as the live
/// feed reads seats, so a join that commits late is not skipped; some are
/// read twice, and the reader keeps each once).
pub struct FeedRead {
    pub queues: Vec<QueueState>,
    /// (event, join, order key).
    pub joins: Vec<(EventId, Uuid, i64)>,
    /// Where the next read starts.
    pub next_cursor: i64,
}

pub async fn feed(client: &impl GenericClient, cursor: i64) -> AppResult<FeedRead> {
    let queues = client
        .query(
            &format!("SELECT {STATE_COLUMNS} FROM event_queues q ORDER BY q.event_id"),
            &[],
        )
        .await?
        .iter()
        .map(state_of)
        .collect();
    let rows = client
        .query(
            "SELECT event_id, id, order_key,
                    pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS next_cursor
               FROM queue_joins WHERE xid >= $1::bigint::text::xid8
              UNION ALL
             SELECT NULL, NULL, NULL, pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
            &[&cursor],
        )
        .await?;
    let mut next_cursor = cursor;
    let mut joins = Vec::new();
    for row in &rows {
        next_cursor = row.get("next_cursor");
        if let Some(event_id) = row.get::<_, Option<EventId>>("event_id") {
            joins.push((event_id, row.get("id"), row.get("order_key")));
        }
    }
    Ok(FeedRead {
        queues,
        joins,
        next_cursor,
    })
}

/// The join's admission: None if there is no such join (the queue was
/// turned off and on again), else when its shopping window ends (or
/// ended), if it has been admitted.
pub async fn admission_of(
    client: &impl GenericClient,
    event_id: EventId,
    join_id: Uuid,
) -> AppResult<Option<Option<OffsetDateTime>>> {
    let statement = client
        .prepare_cached("SELECT admitted_until FROM queue_joins WHERE id = $1 AND event_id = $2")
        .await?;
    Ok(client
        .query_opt(&statement, &[&join_id, &event_id])
        .await?
        .map(|r| r.get(0)))
}

/// Admitted buyers shopping now (see `shopping!`).
pub async fn shopping(client: &impl GenericClient, event_id: EventId) -> AppResult<i64> {
    Ok(client
        .query_one(
            concat!(
                "SELECT count(*) FROM queue_joins j WHERE j.event_id = $1 AND ",
                shopping!()
            ),
            &[&event_id],
        )
        .await?
        .get(0))
}
