//! The offline door's server side: the list a device keeps, the
//! admissions it sends when it is back online, and what those found.

use time::OffsetDateTime;

use super::GenericClient;
use super::tickets::{Admission, Scan};
use crate::domain::ids::{Actor, EventId};
use crate::domain::ticket::TicketCode;
use crate::error::AppResult;

/// One ticket of the event as the device's list has it (the code is
/// hashed before it leaves the server).
pub struct ListedTicket {
    pub code: TicketCode,
    pub place: String,
    pub refunded: bool,
    /// A code that was passed on (its ticket has a new code, listed too).
    pub transferred: bool,
    pub admitted_at: Option<OffsetDateTime>,
    pub admitted_gate: Option<String>,
}

/// Every ticket of the event, refunded ones too, and every code passed on
/// (a device offline must say "refunded" or "transferred", not "unknown").
pub async fn list(client: &impl GenericClient, event_id: EventId) -> AppResult<Vec<ListedTicket>> {
    let statement = client
        .prepare_cached(
            "SELECT codes.code, codes.transferred,
                    CASE WHEN s.id IS NULL THEN a.name
                         ELSE sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label
                    END AS place,
                    t.voided_at IS NOT NULL AS refunded, t.admitted_at, t.admitted_gate
               FROM (SELECT id AS ticket_id, code, false AS transferred
                       FROM tickets WHERE event_id = $1
                     UNION ALL
                     SELECT ticket_id, from_code, true
                       FROM ticket_transfers WHERE event_id = $1) codes
               JOIN tickets t ON t.id = codes.ticket_id
               LEFT JOIN seats s ON s.id = t.seat_id
               LEFT JOIN sections sec ON sec.id = s.section_id
               LEFT JOIN ga_areas a ON a.id = t.ga_area_id",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| ListedTicket {
            code: TicketCode::parse(row.get("code")).expect("the schema's CHECK spells codes"),
            place: row.get("place"),
            refunded: row.get("refunded"),
            transferred: row.get("transferred"),
            admitted_at: row.get("admitted_at"),
            admitted_gate: row.get("admitted_gate"),
        })
        .collect())
}

/// What the server made of one admission a device sent.
pub enum Synced {
    /// The server's one admission of the ticket is this one (or was
    /// already this device's: a batch sent again).
    Admitted,
    /// Another gate had admitted it: recorded as a conflict.
    AdmittedTwice,
    /// It was refunded: the device let in a void ticket. Recorded.
    Refunded,
    /// Its time is outside the ticket's life (before it could have been
    /// sold, or in the future): nothing admitted, recorded.
    OutOfWindow,
    /// The code had been passed on: its ticket's new code is the valid
    /// one. Recorded.
    Transferred,
    /// No ticket of this event has the code.
    Unknown,
}

/// How far a device's clock may be from the server's: a scan "now" by a
/// clock this far ahead is still now, and the same device's own admission
/// sent again is recognised within this much of the server's record.
const CLOCK_SKEW: time::Duration = time::Duration::minutes(5);

/// Applies a scan a device made offline: the same conditional statement
/// as an online scan (`tickets::admit`), then, if it admitted nothing, a
/// conflict row for what the device did (once per device and scan time:
/// the device's own time, as sent, so a batch sent again matches it).
///
/// Admitted already, the scan is the same admission only when it comes
/// from the device that made it, at the same gate, within
/// [`CLOCK_SKEW`] of its time (a batch sent again, or the offline copy of
/// an online scan whose answer never arrived); any other repeat is a
/// conflict, whatever device it names. A scan timed before a day ahead of
/// the earlier of the event's start and the ticket's sale, or after now,
/// admits nothing and is recorded.
pub async fn apply_offline_scan(
    client: &impl GenericClient,
    event_id: EventId,
    code: &TicketCode,
    scan: &Scan<'_>,
    actor: Actor,
) -> AppResult<Synced> {
    let at = scan.at.unwrap_or_else(OffsetDateTime::now_utc);
    let window = client
        .prepare_cached(
            "SELECT t.id, $3 >= least(e.starts_at, t.issued_at) - interval '1 day'
                          AND $3 <= now() + make_interval(secs => $4) AS in_window
               FROM tickets t JOIN events e ON e.id = t.event_id
              WHERE t.code = $1 AND t.event_id = $2",
        )
        .await?;
    let Some(row) = client
        .query_opt(
            &window,
            &[
                &code.as_str(),
                &event_id,
                &at,
                &(CLOCK_SKEW.whole_seconds() as f64),
            ],
        )
        .await?
    else {
        // A code passed on after the device's list was fetched: let in by
        // the device, refused by the server, recorded for both gates.
        return Ok(match super::transfers::given_away(client, code).await? {
            Some(given) if given.event_id == event_id => {
                record_conflict(client, event_id, given.ticket_id, "transferred", scan, at).await?;
                Synced::Transferred
            }
            _ => Synced::Unknown,
        });
    };
    if !row.get::<_, bool>("in_window") {
        record_conflict(client, event_id, row.get("id"), "out_of_window", scan, at).await?;
        return Ok(Synced::OutOfWindow);
    }
    let admission = super::tickets::admit(client, event_id, code, scan, actor).await?;
    let (kind, ticket) = match &admission {
        Admission::Admitted(_) => return Ok(Synced::Admitted),
        Admission::Unknown | Admission::WrongEvent(_) => return Ok(Synced::Unknown),
        // The code was passed on between the window's read and the scan.
        Admission::Transferred(given) => {
            record_conflict(client, event_id, given.ticket_id, "transferred", scan, at).await?;
            return Ok(Synced::Transferred);
        }
        Admission::AlreadyAdmitted(ticket) if is_own_admission(ticket, scan, at) => {
            return Ok(Synced::Admitted);
        }
        Admission::AlreadyAdmitted(ticket) => ("admitted_twice", ticket),
        Admission::Refunded(ticket) => ("refunded", ticket),
    };
    record_conflict(client, event_id, ticket.id, kind, scan, at).await?;
    Ok(if kind == "refunded" {
        Synced::Refunded
    } else {
        Synced::AdmittedTwice
    })
}

/// Whether an admitted ticket's admission is this scan's own: the same
/// device, gate, and time (within the clock skew).
fn is_own_admission(ticket: &super::tickets::Ticket, scan: &Scan<'_>, at: OffsetDateTime) -> bool {
    scan.device.is_some()
        && ticket.admitted_device.as_deref() == scan.device
        && ticket.admitted_gate.as_deref() == Some(scan.gate)
        && ticket
            .admitted_at
            .is_some_and(|admitted| (admitted - at).abs() <= CLOCK_SKEW)
}

async fn record_conflict(
    client: &impl GenericClient,
    event_id: EventId,
    ticket_id: crate::domain::ids::TicketId,
    kind: &str,
    scan: &Scan<'_>,
    at: OffsetDateTime,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "INSERT INTO door_conflicts (event_id, ticket_id, kind, gate, device, scanned_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (ticket_id, device, scanned_at) DO NOTHING",
        )
        .await?;
    client
        .execute(
            &statement,
            &[
                &event_id,
                &ticket_id,
                &kind,
                &scan.gate,
                &scan.device.unwrap_or("-"),
                &at,
            ],
        )
        .await?;
    Ok(())
}

/// A new device id for the caller: the door page asks for one when it
/// first loads and keeps it.
pub async fn issue_device(client: &impl GenericClient, actor: Actor) -> AppResult<String> {
    let id = crate::domain::door::new_device_id();
    let (staff_id, key_id) = match actor {
        Actor::Staff(id) => (Some(id), None),
        Actor::Key(id) => (None, Some(id)),
    };
    client
        .execute(
            "INSERT INTO door_devices (id, staff_id, api_key_id) VALUES ($1, $2, $3)",
            &[&id, &staff_id, &key_id],
        )
        .await?;
    Ok(id)
}

/// Whether `device` was issued to this caller.
pub async fn is_callers_device(
    client: &impl GenericClient,
    device: &str,
    actor: Actor,
) -> AppResult<bool> {
    let (staff_id, key_id) = match actor {
        Actor::Staff(id) => (Some(id), None),
        Actor::Key(id) => (None, Some(id)),
    };
    let statement = client
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM door_devices WHERE id = $1
                              AND staff_id IS NOT DISTINCT FROM $2
                              AND api_key_id IS NOT DISTINCT FROM $3)",
        )
        .await?;
    Ok(client
        .query_one(&statement, &[&device, &staff_id, &key_id])
        .await?
        .get(0))
}

/// What a device's scan that admitted nothing was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// Another admission (another gate, or another time) came first.
    AdmittedTwice,
    /// The ticket was refunded.
    Refunded,
    /// Timed outside the ticket's life (a device's clock, or a forgery).
    OutOfWindow,
    /// Let in by a code that had been passed on.
    Transferred,
}

impl ConflictKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictKind::AdmittedTwice => "admitted_twice",
            ConflictKind::Refunded => "refunded",
            ConflictKind::OutOfWindow => "out_of_window",
            ConflictKind::Transferred => "transferred",
        }
    }

    fn from_db(kind: &str) -> ConflictKind {
        match kind {
            "refunded" => ConflictKind::Refunded,
            "out_of_window" => ConflictKind::OutOfWindow,
            "transferred" => ConflictKind::Transferred,
            _ => ConflictKind::AdmittedTwice,
        }
    }
}

/// A ticket a device let in that the server had already admitted, or
/// that was refunded, or a scan timed outside the ticket's life.
pub struct DoorConflict {
    pub place: String,
    pub kind: ConflictKind,
    /// The server's admission (None for a refunded ticket never admitted).
    pub first_gate: Option<String>,
    pub first_at: Option<OffsetDateTime>,
    /// The device's.
    pub gate: String,
    pub scanned_at: OffsetDateTime,
}

pub async fn conflicts(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<DoorConflict>> {
    let statement = client
        .prepare_cached(
            "SELECT CASE WHEN s.id IS NULL THEN a.name
                         ELSE sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label
                    END AS place,
                    c.kind, t.admitted_gate, t.admitted_at,
                    c.gate, c.scanned_at
               FROM door_conflicts c
               JOIN tickets t ON t.id = c.ticket_id
               LEFT JOIN seats s ON s.id = t.seat_id
               LEFT JOIN sections sec ON sec.id = s.section_id
               LEFT JOIN ga_areas a ON a.id = t.ga_area_id
              WHERE c.event_id = $1
              ORDER BY c.scanned_at, c.id",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| DoorConflict {
            place: row.get("place"),
            kind: ConflictKind::from_db(row.get("kind")),
            first_gate: row.get("admitted_gate"),
            first_at: row.get("admitted_at"),
            gate: row.get("gate"),
            scanned_at: row.get("scanned_at"),
        })
        .collect())
}
