//! A ticket as the files' makers take it: its facts in the current
//! language and the venue's time zone. The makers (`pdf`, `apple`,
//! `google`) know nothing of the app; this is where it meets them.

use sha2::Digest;

use super::{Labels, PassColours, TicketFacts, pdf};
use crate::db::tickets::Ticket;
use crate::domain::ids::OrderId;

/// Wallet passes in the site's colours (venues have none of their own yet).
pub const COLOURS: PassColours = PassColours {
    background: (29, 53, 87),
    foreground: (255, 255, 255),
    label: (168, 218, 220),
};

/// The ticket's facts in the current language and the venue's zone.
pub fn facts(ticket: &Ticket) -> TicketFacts {
    use crate::i18n::t;
    let locale = &ticket.locale;
    let place = match (&ticket.row, &ticket.seat) {
        (Some(row), Some(seat)) => vec![
            (t("ticket-file-section"), ticket.section.clone()),
            (t("ticket-file-row"), row.clone()),
            (t("ticket-file-seat"), seat.clone()),
        ],
        _ => vec![(t("ticket-file-area"), ticket.section.clone())],
    };
    let code_hash = sha2::Sha256::digest(ticket.code.as_str().as_bytes());
    TicketFacts {
        event_name: ticket.event_name.clone(),
        venue: ticket.venue.clone(),
        starts_text: locale.time(ticket.starts_at),
        starts_at: ticket.starts_at,
        starts_offset: locale.offset_at(ticket.starts_at),
        place,
        kind: ticket.kind(),
        price: locale.price(ticket.price_cents),
        holder_name: ticket.holder_name().to_string(),
        order_ref: order_ref(ticket.order_id),
        code: ticket.code.to_string(),
        code_grouped: ticket.code.grouped(),
        // A new code (after a transfer) is a new pass; the hash names the
        // code without giving it away to whoever reads the serial.
        serial: format!(
            "ticket-{}-{}",
            ticket.id,
            &data_encoding::HEXLOWER.encode(&code_hash)[..16]
        ),
        event_key: format!("event-{}", ticket.event_id),
        labels: Labels {
            event: t("ticket-file-event"),
            date: t("ticket-file-date"),
            venue: t("ticket-file-venue"),
            ticket_type: t("ticket-file-type"),
            price: t("ticket-file-price"),
            holder: t("ticket-file-holder"),
            order: t("ticket-file-order"),
            code: t("ticket-code"),
            door_note: t("ticket-file-door-note"),
            language: crate::i18n::current().tag().to_string(),
        },
    }
}

/// The order as a buyer reads it out: its id's first eight hex digits.
pub fn order_ref(order_id: OrderId) -> String {
    order_id.0.simple().to_string()[..8].to_uppercase()
}

/// A4, or US Letter where the venue's country prints on it.
pub fn paper(ticket: &Ticket) -> pdf::Paper {
    pdf::Paper::of_country(crate::domain::local_time::zone_country(
        &ticket.locale.time_zone,
    ))
}
