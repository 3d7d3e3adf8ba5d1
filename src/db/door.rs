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
    pub admitted_at: Option<OffsetDateTime>,
    pub admitted_gate: Option<String>,
}

/// Every ticket of the event, refunded ones too (a device offline must
/// say "refunded", not "unknown").
pub async fn list(client: &impl GenericClient, event_id: EventId) -> AppResult<Vec<ListedTicket>> {
    let statement = client
        .prepare_cached(
            "SELECT t.code,
                    CASE WHEN s.id IS NULL THEN a.name
                         ELSE sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label
                    END AS place,
                    t.voided_at IS NOT NULL AS refunded, t.admitted_at, t.admitted_gate
               FROM tickets t
               LEFT JOIN seats s ON s.id = t.seat_id
               LEFT JOIN sections sec ON sec.id = s.section_id
               LEFT JOIN ga_areas a ON a.id = t.ga_area_id
              WHERE t.event_id = $1",
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
    /// No ticket of this event has the code.
    Unknown,
}

/// Applies a scan a device made offline: the same conditional statement
/// as an online scan (`tickets::admit`), then, if it admitted nothing, a
/// conflict row for what the device did (once per device and scan time:
/// the device's own time, as sent, so a batch sent again matches it).
pub async fn apply_offline_scan(
    client: &impl GenericClient,
    event_id: EventId,
    code: &TicketCode,
    scan: &Scan<'_>,
    actor: Actor,
) -> AppResult<Synced> {
    let admission = super::tickets::admit(client, event_id, code, scan, actor).await?;
    let (kind, ticket) = match &admission {
        Admission::Admitted(_) => return Ok(Synced::Admitted),
        Admission::Unknown | Admission::WrongEvent(_) => return Ok(Synced::Unknown),
        Admission::AlreadyAdmitted(ticket)
            if ticket.admitted_device.is_some()
                && ticket.admitted_device.as_deref() == scan.device =>
        {
            return Ok(Synced::Admitted);
        }
        Admission::AlreadyAdmitted(ticket) => ("admitted_twice", ticket),
        Admission::Refunded(ticket) => ("refunded", ticket),
    };
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
                &ticket.id,
                &kind,
                &scan.gate,
                &scan.device.unwrap_or("-"),
                &scan.at.unwrap_or_else(OffsetDateTime::now_utc),
            ],
        )
        .await?;
    Ok(if kind == "refunded" {
        Synced::Refunded
    } else {
        Synced::AdmittedTwice
    })
}

/// A ticket a device let in that the server had already admitted, or
/// that was refunded.
pub struct DoorConflict {
    pub place: String,
    pub refunded: bool,
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
                    c.kind = 'refunded' AS refunded, t.admitted_gate, t.admitted_at,
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
            refunded: row.get("refunded"),
            first_gate: row.get("admitted_gate"),
            first_at: row.get("admitted_at"),
            gate: row.get("gate"),
            scanned_at: row.get("scanned_at"),
        })
        .collect())
}
