//! The waitlist: parties waiting for a sold-out event (or section, or
//! tier), the seats kept for them, and the offers made to them.
//!
//! While a party waits (and staff haven't paused the list), every free
//! seat it would take is the waitlist's: a buyer's claim leaves it alone in
//! its own statement ([`reserved_sql`], in `seats` and `best_available`),
//! and is told `waitlist_first`. The offer worker (`waitlist_offers::offer_pass`) walks an
//! event's parties in the order they joined, holding the event's queue row
//! (`FOR UPDATE SKIP LOCKED`, so one instance at a time, and no party gets
//! two offers), and gives each party that fits what is free a hold of its
//! own, found by best available's search, for the offer window.

use time::OffsetDateTime;
use uuid::Uuid;

use super::{GenericClient, Pool};
use crate::domain::ids::{Actor, BuyerId, EventId, HoldId, SeatId, SectionId, WaitlistEntryId};
use crate::domain::lang::Lang;
use crate::error::{AppError, AppResult, Conflict, Missing};

pub use super::waitlist_cap::WaitlistClient;
use super::waitlist_cap::refuse_past_client_cap;
use super::waitlist_first::{FREE, reserved_sql};

/// Whether anyone waits for the event (what the event page asks, to
/// offer the waitlist's form).
pub async fn has_waiting(client: &impl GenericClient, event_id: EventId) -> AppResult<bool> {
    let statement = client
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM waitlist_entries
                             WHERE event_id = $1 AND status = 'waiting')",
        )
        .await?;
    Ok(client.query_one(&statement, &[&event_id]).await?.get(0))
}

/// What a party asks for when it joins.
pub struct JoinRequest {
    pub party_size: i32,
    pub together: bool,
    pub section_id: Option<SectionId>,
    pub tier_id: Option<i64>,
    pub max_price_cents: Option<i32>,
    pub email: String,
    pub lang: Lang,
    pub buyer_id: BuyerId,
    pub client: WaitlistClient,
    /// The most live places one client may have on one event's list.
    pub max_per_client: u32,
    /// Whether the place waits for its address to be confirmed from a
    /// mailed link (false where no mail can be sent: confirmed at once).
    pub needs_confirming: bool,
}

pub struct Joined {
    pub entry_id: WaitlistEntryId,
    pub position: i64,
    /// Whether it waits for its address to be confirmed.
    pub unconfirmed: bool,
}

/// Joins the event's waitlist, if it is sold out for what the party would
/// take: free seats a buyer could still pick are a `409 not_sold_out`.
/// The confirmation mail is queued in the same transaction.
pub async fn join(pool: &Pool, event_id: EventId, request: &JoinRequest) -> AppResult<Joined> {
    super::in_transaction(pool, async |tx| {
        super::events::lock_on_sale(tx, event_id).await?;
        let free_sql = format!(
            "SELECT count(*) FROM seats s JOIN price_tiers t ON t.id = s.tier_id
              WHERE s.event_id = $1 AND {FREE}
                AND ($2::bigint IS NULL OR s.section_id = $2)
                AND ($3::bigint IS NULL OR s.tier_id = $3)
                AND ($4::int IS NULL OR t.price_cents <= $4)
                AND NOT {}
                AND (NOT s.accessibility && ARRAY['wheelchair', 'companion']
                     OR NOT (SELECT accessible_held_back(e.accessible_seats,
                                    e.accessible_release_secs, e.starts_at)
                               FROM events e WHERE e.id = $1))",
            reserved_sql("$1", "s.section_id", "s.tier_id", "s.accessibility")
        );
        let free: i64 = tx
            .query_one(
                &free_sql,
                &[
                    &event_id,
                    &request.section_id,
                    &request.tier_id,
                    &request.max_price_cents,
                ],
            )
            .await?
            .get(0);
        if free > 0 {
            return Err(AppError::Conflict(Conflict::NotSoldOut { free }));
        }
        refuse_past_client_cap(tx, event_id, request.client, request.max_per_client).await?;
        let (network, key) = match request.client {
            WaitlistClient::Network(ip) => (Some(ip), None),
            WaitlistClient::Key(key) => (None, Some(key)),
        };
        let entry_id = WaitlistEntryId(Uuid::new_v4());
        let inserted = tx
            .execute(
                "INSERT INTO waitlist_entries (id, event_id, buyer_id, party_size, together,
                                               section_id, tier_id, max_price_cents, email, lang,
                                               client_network, api_key_id, confirmed_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
                         CASE WHEN $13 THEN NULL ELSE now() END)
                 ON CONFLICT DO NOTHING",
                &[
                    &entry_id,
                    &event_id,
                    &request.buyer_id,
                    &request.party_size,
                    &request.together,
                    &request.section_id,
                    &request.tier_id,
                    &request.max_price_cents,
                    &request.email,
                    &request.lang.tag(),
                    &network,
                    &key,
                    &request.needs_confirming,
                ],
            )
            .await?;
        if inserted == 0 {
            return Err(AppError::Conflict(Conflict::AlreadyWaiting));
        }
        tx.execute(
            "INSERT INTO waitlist_queues (event_id) VALUES ($1) ON CONFLICT DO NOTHING",
            &[&event_id],
        )
        .await?;
        queue_mail(tx, entry_id, "waitlist_joined").await?;
        Ok(Joined {
            entry_id,
            position: position(tx, entry_id).await?,
            unconfirmed: request.needs_confirming,
        })
    })
    .await
}

/// The party's place: 1 for the first still waiting (or holding an
/// offer). Parties that haven't confirmed their address are not in line
/// ahead of anyone (only the party asking counts itself).
pub async fn position(client: &impl GenericClient, entry_id: WaitlistEntryId) -> AppResult<i64> {
    let row = client
        .query_one(
            "SELECT count(*) FROM waitlist_entries w
               JOIN waitlist_entries me ON me.id = $1
              WHERE w.event_id = me.event_id AND w.joined_seq <= me.joined_seq
                AND w.status IN ('waiting', 'offered')
                AND (w.confirmed_at IS NOT NULL OR w.id = me.id)",
            &[&entry_id],
        )
        .await?;
    Ok(row.get(0))
}

/// Queues a mail about the entry, in the same transaction as its change.
pub(super) async fn queue_mail(
    client: &impl GenericClient,
    entry_id: WaitlistEntryId,
    kind: &str,
) -> AppResult<()> {
    client
        .execute(
            "INSERT INTO outbox (message_id, kind, waitlist_entry_id, recipient, subject)
             SELECT $1, $2, w.id, w.email, 'Waitlist: ' || e.name
               FROM waitlist_entries w JOIN events e ON e.id = w.event_id WHERE w.id = $3",
            &[&format!("<{}@seatmap>", Uuid::new_v4()), &kind, &entry_id],
        )
        .await?;
    Ok(())
}

/// A place on the waitlist, as the party and staff see it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: WaitlistEntryId,
    pub event_id: EventId,
    pub buyer_id: BuyerId,
    pub party_size: i32,
    pub together: bool,
    pub section: Option<String>,
    pub tier: Option<String>,
    pub max_price_cents: Option<i32>,
    pub email: String,
    pub lang: String,
    pub status: String,
    pub joined_at: OffsetDateTime,
    pub hold_id: Option<HoldId>,
    pub offer_expires_at: Option<OffsetDateTime>,
    pub offer_seat_ids: Vec<SeatId>,
    /// Whether this entry is itself a rejoin (it may not rejoin again).
    pub is_rejoin: bool,
    /// Whether a later entry rejoined from this one.
    pub rejoined: bool,
    /// When the party confirmed the address it gave (from its mail's
    /// link); until then it gets no offer.
    pub confirmed_at: Option<OffsetDateTime>,
}

const ENTRY_SELECT: &str = "SELECT w.id, w.event_id, w.buyer_id, w.party_size, w.together,
            sec.name AS section, t.code AS tier, w.max_price_cents, w.email, w.lang, w.status,
            w.joined_at, w.hold_id, w.offer_expires_at,
            coalesce((SELECT array_agg(s.id ORDER BY s.id) FROM seats s
                       WHERE w.status = 'offered' AND s.hold_id = w.hold_id), '{}') AS seat_ids,
            w.rejoined_from IS NOT NULL AS is_rejoin, w.confirmed_at,
            EXISTS (SELECT 1 FROM waitlist_entries r WHERE r.rejoined_from = w.id) AS rejoined
       FROM waitlist_entries w
       LEFT JOIN sections sec ON sec.id = w.section_id
       LEFT JOIN price_tiers t ON t.id = w.tier_id";

fn entry(row: &tokio_postgres::Row) -> Entry {
    Entry {
        id: row.get("id"),
        event_id: row.get("event_id"),
        buyer_id: row.get("buyer_id"),
        party_size: row.get("party_size"),
        together: row.get("together"),
        section: row.get("section"),
        tier: row.get("tier"),
        max_price_cents: row.get("max_price_cents"),
        email: row.get("email"),
        lang: row.get("lang"),
        status: row.get("status"),
        joined_at: row.get("joined_at"),
        hold_id: row.get("hold_id"),
        offer_expires_at: row.get("offer_expires_at"),
        offer_seat_ids: row.get("seat_ids"),
        is_rejoin: row.get("is_rejoin"),
        rejoined: row.get("rejoined"),
        confirmed_at: row.get("confirmed_at"),
    }
}

pub async fn find(client: &impl GenericClient, entry_id: WaitlistEntryId) -> AppResult<Entry> {
    let row = client
        .query_opt(&format!("{ENTRY_SELECT} WHERE w.id = $1"), &[&entry_id])
        .await?
        .ok_or(AppError::NotFound(Missing::WaitlistEntry))?;
    Ok(entry(&row))
}

/// The event's waitlist in join order, for staff.
pub async fn for_event(client: &impl GenericClient, event_id: EventId) -> AppResult<Vec<Entry>> {
    let rows = client
        .query(
            &format!("{ENTRY_SELECT} WHERE w.event_id = $1 ORDER BY w.joined_seq"),
            &[&event_id],
        )
        .await?;
    Ok(rows.iter().map(entry).collect())
}

/// Leaves the waitlist. A party holding an offer gives its seats back.
/// Leaving twice is leaving once; an accepted offer stays accepted.
pub async fn leave(pool: &Pool, entry_id: WaitlistEntryId) -> AppResult<Entry> {
    super::in_transaction(pool, async |tx| {
        let row = tx
            .query_opt(
                "SELECT status, hold_id FROM waitlist_entries WHERE id = $1 FOR UPDATE",
                &[&entry_id],
            )
            .await?
            .ok_or(AppError::NotFound(Missing::WaitlistEntry))?;
        let status: String = row.get("status");
        let hold_id: Option<HoldId> = row.get("hold_id");
        if status == "offered"
            && let Some(hold_id) = hold_id
            && !release_offer(tx, hold_id).await?
        {
            // Checked out and being paid for: the payment decides.
            return Err(AppError::Conflict(Conflict::HoldBeingPaid));
        }
        tx.execute(
            "UPDATE waitlist_entries SET status = 'left', closed_at = now()
              WHERE id = $1 AND status IN ('waiting', 'offered')",
            &[&entry_id],
        )
        .await?;
        find(tx, entry_id).await
    })
    .await
}

/// An offer's seats back on sale (or to the next party), its hold closed;
/// false (and nothing changed) when the hold is being paid for. A hold
/// already closed, or run out, leaves nothing of the party's to release.
async fn release_offer(tx: &impl GenericClient, hold_id: HoldId) -> AppResult<bool> {
    let state: String = tx
        .query_one(
            "SELECT state FROM holds WHERE id = $1 FOR UPDATE",
            &[&hold_id],
        )
        .await?
        .get(0);
    match state.as_str() {
        "PAYING" => Ok(false),
        "OPEN" => {
            tx.execute(
                "UPDATE holds SET state = 'RELEASED', closed_at = now() WHERE id = $1",
                &[&hold_id],
            )
            .await?;
            super::seats::release_all(tx, hold_id).await?;
            Ok(true)
        }
        _ => Ok(true),
    }
}

/// Joins again at the back, once, after an offer lapsed.
pub async fn rejoin(pool: &Pool, entry_id: WaitlistEntryId) -> AppResult<Joined> {
    super::in_transaction(pool, async |tx| {
        // Locked, so a rejoin sent twice at once is one rejoin and a 409.
        tx.execute(
            "SELECT 1 FROM waitlist_entries WHERE id = $1 FOR UPDATE",
            &[&entry_id],
        )
        .await?;
        let old = find(tx, entry_id).await?;
        if old.status != "lapsed" || old.is_rejoin || old.rejoined {
            return Err(AppError::Conflict(Conflict::CannotRejoin));
        }
        let new_id = WaitlistEntryId(Uuid::new_v4());
        tx.execute(
            "INSERT INTO waitlist_entries (id, event_id, buyer_id, party_size, together,
                                           section_id, tier_id, max_price_cents, email, lang,
                                           rejoined_from, client_network, api_key_id,
                                           confirmed_at)
             SELECT $1, event_id, buyer_id, party_size, together, section_id, tier_id,
                    max_price_cents, email, lang, id, client_network, api_key_id, confirmed_at
               FROM waitlist_entries WHERE id = $2
             ON CONFLICT DO NOTHING",
            &[&new_id, &entry_id],
        )
        .await
        .map_err(AppError::from)
        .and_then(|inserted| match inserted {
            0 => Err(AppError::Conflict(Conflict::AlreadyWaiting)),
            _ => Ok(inserted),
        })?;
        queue_mail(tx, new_id, "waitlist_joined").await?;
        Ok(Joined {
            entry_id: new_id,
            position: position(tx, new_id).await?,
            unconfirmed: old.confirmed_at.is_none(),
        })
    })
    .await
}

/// Pauses the waitlist (general sale as if no one waited, and no offers)
/// or resumes it. Audited.
pub async fn set_paused(
    pool: &Pool,
    event_id: EventId,
    paused: bool,
    actor: Actor,
) -> AppResult<()> {
    super::in_transaction(pool, async |tx| {
        let changed = tx
            .execute(
                "UPDATE events SET waitlist_paused = $2 WHERE id = $1",
                &[&event_id, &paused],
            )
            .await?;
        if changed == 0 {
            return Err(AppError::NotFound(Missing::Event));
        }
        super::audit::record(
            tx,
            super::audit::Entry {
                actor: Some(actor),
                action: if paused {
                    "waitlist_paused"
                } else {
                    "waitlist_resumed"
                },
                event_id: Some(event_id),
                hold_id: None,
                order_id: None,
                seat_ids: &[],
                detail: String::new(),
            },
        )
        .await
    })
    .await
}

/// Clears the waitlist: every waiting party leaves it (offers out stand).
/// Returns how many. Audited.
pub async fn clear(pool: &Pool, event_id: EventId, actor: Actor) -> AppResult<u64> {
    super::in_transaction(pool, async |tx| {
        let cleared = tx
            .execute(
                "UPDATE waitlist_entries SET status = 'left', closed_at = now()
                  WHERE event_id = $1 AND status = 'waiting'",
                &[&event_id],
            )
            .await?;
        super::audit::record(
            tx,
            super::audit::Entry {
                actor: Some(actor),
                action: "waitlist_cleared",
                event_id: Some(event_id),
                hold_id: None,
                order_id: None,
                seat_ids: &[],
                detail: format!("{cleared} waiting parties"),
            },
        )
        .await?;
        Ok(cleared)
    })
    .await
}

/// Whether the waitlist is paused, and seats it has sold.
pub struct Summary {
    pub paused: bool,
    pub waiting: i64,
    pub offered: i64,
    pub seats_sold: i64,
}

pub async fn summary(client: &impl GenericClient, event_id: EventId) -> AppResult<Summary> {
    let row = client
        .query_one(
            "SELECT e.waitlist_paused,
                    (SELECT count(*) FROM waitlist_entries w
                      WHERE w.event_id = e.id AND w.status = 'waiting') AS waiting,
                    (SELECT count(*) FROM waitlist_entries w
                      WHERE w.event_id = e.id AND w.status = 'offered') AS offered,
                    (SELECT count(*) FROM waitlist_entries w
                       JOIN orders o ON o.hold_id = w.hold_id
                       JOIN tickets t ON t.order_id = o.id AND t.seat_id IS NOT NULL
                      WHERE w.event_id = e.id AND w.status = 'accepted') AS seats_sold
               FROM events e WHERE e.id = $1",
            &[&event_id],
        )
        .await?;
    Ok(Summary {
        paused: row.get("waitlist_paused"),
        waiting: row.get("waiting"),
        offered: row.get("offered"),
        seats_sold: row.get("seats_sold"),
    })
}

/// Confirms the address a party gave (it opened the link in its mail):
/// from now on it is in line for offers. Confirming twice is once.
pub async fn confirm(pool: &Pool, entry_id: WaitlistEntryId) -> AppResult<Entry> {
    let client = pool.get().await?;
    client
        .execute(
            "UPDATE waitlist_entries SET confirmed_at = now()
              WHERE id = $1 AND confirmed_at IS NULL",
            &[&entry_id],
        )
        .await?;
    find(&client, entry_id).await
}

/// Gives an offer's hold to the buyer who takes the offer (the hold was
/// made under the party's entry id). Only once: a hold another browser
/// took stays there. Refused when that buyer already holds seats for the
/// event: they must finish or release those.
pub async fn take_offer(
    pool: &Pool,
    entry_id: WaitlistEntryId,
    buyer_id: BuyerId,
) -> AppResult<Entry> {
    super::in_transaction(pool, async |tx| {
        let entry = find(tx, entry_id).await?;
        let Some(hold_id) = entry.hold_id.filter(|_| entry.status == "offered") else {
            return Ok(entry);
        };
        // The buyer's own hold for the event that ran out is closed first,
        // as a claim would (one open hold per buyer and event).
        tx.execute(
            "UPDATE holds SET state = 'EXPIRED', closed_at = now()
              WHERE event_id = $1 AND buyer_id = $2 AND state = 'OPEN' AND expires_at <= now()",
            &[&entry.event_id, &buyer_id],
        )
        .await?;
        let moved = tx
            .execute(
                "UPDATE holds h SET buyer_id = $2
                  WHERE h.id = $1 AND h.state = 'OPEN' AND h.expires_at > now()
                    AND h.buyer_id = $3
                    AND NOT EXISTS (SELECT 1 FROM holds o
                                     WHERE o.event_id = h.event_id AND o.buyer_id = $2
                                       AND o.state = 'OPEN' AND o.expires_at > now())",
                &[&hold_id, &buyer_id, &BuyerId(entry_id.0)],
            )
            .await?;
        let theirs: bool = tx
            .query_one(
                "SELECT buyer_id = $2 FROM holds WHERE id = $1",
                &[&hold_id, &buyer_id],
            )
            .await?
            .get(0);
        if moved == 0 && !theirs {
            return Err(AppError::Conflict(Conflict::OfferNotTaken));
        }
        Ok(entry)
    })
    .await
}

/// A waiting party's section (by name) and tier (by code), as ids;
/// unknown ones are refused as best available refuses them.
pub async fn resolve_scope(
    client: &impl GenericClient,
    event_id: EventId,
    section: Option<&str>,
    tier: Option<&str>,
) -> AppResult<(Option<SectionId>, Option<i64>)> {
    use crate::domain::text::{MAX_CODE_CHARS, MAX_NAME_CHARS, is_plain};
    use crate::error::Invalid;
    let section_id = match section {
        None => None,
        Some(name) => {
            let found = match is_plain(name, MAX_NAME_CHARS) {
                true => client
                    .query_opt(
                        "SELECT id FROM sections WHERE event_id = $1 AND name = $2",
                        &[&event_id, &name],
                    )
                    .await?
                    .map(|r| SectionId(r.get(0))),
                false => None,
            };
            Some(found.ok_or_else(|| AppError::Invalid(Invalid::UnknownSection(name.into())))?)
        }
    };
    let tier_id = match tier {
        None => None,
        Some(code) => {
            let found = match is_plain(code, MAX_CODE_CHARS) {
                true => client
                    .query_opt(
                        "SELECT id FROM price_tiers WHERE event_id = $1 AND code = $2",
                        &[&event_id, &code],
                    )
                    .await?
                    .map(|r| r.get::<_, i64>(0)),
                false => None,
            };
            Some(found.ok_or_else(|| AppError::Invalid(Invalid::UnknownTier(code.into())))?)
        }
    };
    Ok((section_id, tier_id))
}
