//! The waitlist's offer worker: one pass over an event's parties, in the
//! order they joined, holding the event's queue row (`FOR UPDATE SKIP
//! LOCKED`, so one instance at a time, and no party gets two offers); each
//! party that fits what is free gets a hold of its own, found by best
//! available's search, for the offer window.

use std::time::Duration;

use super::best_available::{WaitingParty, offer_to_party};
use super::waitlist::queue_mail;
use super::waitlist_first::keeps_free_seats;
use super::{GenericClient, Pool};
use crate::domain::ids::{BuyerId, EventId, HoldId, WaitlistEntryId};
use crate::error::AppResult;

/// Events whose waitlist has something to do: parties waiting, or offers
/// out (which may have been bought or lapsed).
pub async fn events_due(client: &impl GenericClient) -> AppResult<Vec<EventId>> {
    let rows = client
        .query(
            // Offers out are settled whatever the event's state; parties
            // wait only on events still selling (a closed or cancelled
            // event's are settled, never offered to).
            "SELECT DISTINCT w.event_id FROM waitlist_entries w JOIN events e ON e.id = w.event_id
              WHERE w.status = 'offered'
                 OR (w.status = 'waiting' AND e.sales_closed_at IS NULL AND e.starts_at > now())
              ORDER BY w.event_id",
            &[],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// What one pass over an event's waitlist did.
#[derive(Debug, Default)]
pub struct Pass {
    /// Whether this instance had the event's queue (another may have).
    pub ran: bool,
    pub offered: Vec<(WaitlistEntryId, HoldId)>,
    pub accepted: u64,
    pub lapsed: u64,
}

/// One pass over the event's waitlist, in one transaction: offers bought
/// become accepted, offers run out become lapsed (and their parties are
/// told); then each waiting party, in join order, that fits what is free
/// gets an offer. A party that doesn't fit keeps its place, and never
/// holds up a smaller party behind it.
pub async fn offer_pass(pool: &Pool, event_id: EventId, offer_for: Duration) -> AppResult<Pass> {
    super::retrying(|| async {
        super::in_transaction(pool, async |tx| {
            let mine = tx
                .query_opt(
                    "SELECT q.event_id,
                            e.waitlist_paused OR e.sales_closed_at IS NOT NULL
                                OR e.starts_at <= now() AS no_offers
                       FROM waitlist_queues q
                       JOIN events e ON e.id = q.event_id
                      WHERE q.event_id = $1 FOR UPDATE OF q SKIP LOCKED",
                    &[&event_id],
                )
                .await?;
            let Some(queue) = mine else {
                return Ok(Pass::default());
            };
            // Paused, or no longer selling: offers out are settled, no
            // new ones go out.
            let paused: bool = queue.get("no_offers");
            let mut pass = Pass {
                ran: true,
                ..Pass::default()
            };
            pass.accepted = tx
                .execute(
                    "UPDATE waitlist_entries w SET status = 'accepted', closed_at = now()
                       FROM holds h
                      WHERE w.event_id = $1 AND w.status = 'offered' AND h.id = w.hold_id
                        AND h.state = 'PURCHASED'",
                    &[&event_id],
                )
                .await?;
            let lapsed = tx
                .query(
                    // A hold being bought right now is locked by its
                    // purchase: skipped, so an offer paid for in time is
                    // never called lapsed (the next pass sees it bought).
                    "WITH run_out AS (
                         SELECT h.id FROM holds h JOIN waitlist_entries o ON o.hold_id = h.id
                          WHERE o.event_id = $1 AND o.status = 'offered'
                            AND (h.state IN ('EXPIRED', 'RELEASED')
                                 OR (h.state = 'OPEN' AND h.expires_at <= now()))
                            FOR UPDATE OF h SKIP LOCKED
                     )
                     UPDATE waitlist_entries w SET status = 'lapsed', closed_at = now()
                       FROM run_out
                      WHERE w.hold_id = run_out.id AND w.status = 'offered'
                  RETURNING w.id",
                    &[&event_id],
                )
                .await?;
            pass.lapsed = lapsed.len() as u64;
            for row in &lapsed {
                queue_mail(tx, row.get(0), "waitlist_lapsed").await?;
            }
            if paused || !keeps_free_seats(tx, event_id).await? {
                return Ok(pass);
            }
            let waiting = tx
                .query(
                    "SELECT id, party_size, together, section_id, tier_id, max_price_cents
                       FROM waitlist_entries
                      WHERE event_id = $1 AND status = 'waiting' AND confirmed_at IS NOT NULL
                      ORDER BY joined_seq
                      LIMIT 1000
                        FOR UPDATE SKIP LOCKED",
                    &[&event_id],
                )
                .await?;
            for row in &waiting {
                let entry_id: WaitlistEntryId = row.get("id");
                let party = WaitingParty {
                    party_size: row.get("party_size"),
                    together: row.get("together"),
                    section_id: row.get("section_id"),
                    tier_id: row.get("tier_id"),
                    max_price_cents: row.get("max_price_cents"),
                    hold_buyer: BuyerId(entry_id.0),
                };
                let Some(hold) = offer_to_party(tx, event_id, &party, offer_for).await? else {
                    continue;
                };
                tx.execute(
                    "UPDATE waitlist_entries
                        SET status = 'offered', hold_id = $2, offered_at = now(),
                            offer_expires_at = $3
                      WHERE id = $1",
                    &[&entry_id, &hold.hold_id, &hold.expires_at],
                )
                .await?;
                queue_mail(tx, entry_id, "waitlist_offer").await?;
                pass.offered.push((entry_id, hold.hold_id));
                // Nothing kept left: the parties behind can't fit anything.
                if !keeps_free_seats(tx, event_id).await? {
                    break;
                }
            }
            Ok(pass)
        })
        .await
    })
    .await
}
