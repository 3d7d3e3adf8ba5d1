//! Files a buyer takes a ticket away in: a printable PDF, an Apple Wallet
//! pass and an "Add to Google Wallet" link.
//!
//! The makers (`pdf`, `apple`, `google`) name no `crate::` path, only std
//! and external crates: they draw what [`TicketFacts`] say, already
//! translated and formatted, and choose no language or time zone. `facts`
//! fills them from a ticket.

pub mod apple;
pub mod facts;
pub mod google;
pub mod pdf;

/// One ticket, its text already in the buyer's language and the venue's time zone.
#[derive(Debug, Clone)]
pub struct TicketFacts {
    pub event_name: String,
    pub venue: String,
    /// "Tue 22 Dec 2026, 20:00 CET" (already formatted)
    pub starts_text: String,
    /// The instant, for wallets' relevant date (RFC 3339 with offset in pass.json).
    pub starts_at: time::OffsetDateTime,
    /// The venue's UTC offset at the start, so wallet dates print in local time.
    pub starts_offset: time::UtcOffset,
    /// Labelled place parts, in order: [("Section","Stalls"),("Row","C"),("Seat","7")] or [("Area","Standing floor")].
    pub place: Vec<(String, String)>,
    /// "Standard · Child"
    pub kind: String,
    /// "€45.00"
    pub price: String,
    pub holder_name: String,
    /// The order reference shown to the buyer (a short string like "7F3A-91C2").
    pub order_ref: String,
    /// The bearer code: 32 characters of RFC 4648 base32 (A–Z, 2–7).
    pub code: String,
    /// "ABCD EFGH …" (groups of four)
    pub code_grouped: String,
    /// Stable per ticket *and code* (a new code after a transfer gives a new serial): use as pass serial / wallet object id suffix. Only [A-Za-z0-9._-].
    pub serial: String,
    /// Stable per event: the wallet class id suffix. Only [A-Za-z0-9._-].
    pub event_key: String,
    /// Localised labels.
    pub labels: Labels,
}

/// The words printed beside the facts, in the buyer's language.
#[derive(Debug, Clone)]
pub struct Labels {
    pub event: String,
    pub date: String,
    pub venue: String,
    pub ticket_type: String,
    pub price: String,
    pub holder: String,
    pub order: String,
    pub code: String,
    /// One sentence for the foot of the PDF ticket ("Show this code at the door. It admits once.")
    pub door_note: String,
    /// BCP 47, like "en" or "de".
    pub language: String,
}

/// Colours of a pass: background, text and label, as (r,g,b).
#[derive(Debug, Clone, Copy)]
pub struct PassColours {
    pub background: (u8, u8, u8),
    pub foreground: (u8, u8, u8),
    pub label: (u8, u8, u8),
}

/// What a place part is, for wallets that file seats under fixed keys.
///
/// The labels are translated, so they can't say what a part is; the order
/// can. A single part is a standing area; otherwise the parts read from the
/// end as seat, row, section (so "Row C, Seat 7" without a section works too),
/// and any part before those gets a numbered key of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PlacePartKind {
    Area,
    Section,
    Row,
    Seat,
    Other(usize),
}

impl PlacePartKind {
    fn key(&self) -> String {
        match self {
            PlacePartKind::Area => "area".to_owned(),
            PlacePartKind::Section => "section".to_owned(),
            PlacePartKind::Row => "row".to_owned(),
            PlacePartKind::Seat => "seat".to_owned(),
            PlacePartKind::Other(index) => format!("place{index}"),
        }
    }
}

fn place_part_kinds(part_count: usize) -> Vec<PlacePartKind> {
    if part_count == 1 {
        return vec![PlacePartKind::Area];
    }
    (0..part_count)
        .map(|index| match part_count - index {
            1 => PlacePartKind::Seat,
            2 => PlacePartKind::Row,
            3 => PlacePartKind::Section,
            _ => PlacePartKind::Other(index + 1),
        })
        .collect()
}

/// The start as wallets want it: RFC 3339 in the venue's offset, so a
/// wallet that prints the date as given shows the venue's clock.
fn starts_local_rfc3339(ticket: &TicketFacts) -> anyhow::Result<String> {
    Ok(ticket
        .starts_at
        .to_offset(ticket.starts_offset)
        .format(&time::format_description::well_known::Rfc3339)?)
}

/// Ids end up in URLs and wallet ids, where other characters are refused
/// or change meaning.
fn check_id_part(what: &str, value: &str) -> anyhow::Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if value.is_empty() || !value.chars().all(allowed) {
        anyhow::bail!("{what} must be non-empty and only [A-Za-z0-9._-], got {value:?}");
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod test_facts {
    use super::{Labels, TicketFacts};

    /// A seated ticket whose text uses the accents and signs the PDF font must cover.
    pub(crate) fn seated() -> TicketFacts {
        TicketFacts {
            event_name: "Schöne Grüße: Straßenmusik «Noël» ¿Qué pasó? ¡Olé! Ça va, ñandú"
                .to_owned(),
            venue: "Großer Saal, Théâtre São João".to_owned(),
            starts_text: "Di. 22. Dez. 2026, 20:00 MEZ".to_owned(),
            starts_at: time::macros::datetime!(2026-12-22 19:00 UTC),
            starts_offset: time::macros::offset!(+1),
            place: vec![
                ("Bereich".to_owned(), "Parkett".to_owned()),
                ("Reihe".to_owned(), "C".to_owned()),
                ("Platz".to_owned(), "7".to_owned()),
            ],
            kind: "Standard · Kind".to_owned(),
            price: "€45.00".to_owned(),
            holder_name: "Zoë Müller-Lüdenscheidt".to_owned(),
            order_ref: "7F3A-91C2".to_owned(),
            code: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".to_owned(),
            code_grouped: "ABCD EFGH IJKL MNOP QRST UVWX YZ23 4567".to_owned(),
            serial: "t-42.c-9f3a".to_owned(),
            event_key: "event-17".to_owned(),
            labels: Labels {
                event: "Veranstaltung".to_owned(),
                date: "Datum".to_owned(),
                venue: "Ort".to_owned(),
                ticket_type: "Ticketart".to_owned(),
                price: "Preis".to_owned(),
                holder: "Inhaber".to_owned(),
                order: "Bestellung".to_owned(),
                code: "Code".to_owned(),
                door_note: "Zeigen Sie diesen Code am Eingang. Er gilt für einen Einlass."
                    .to_owned(),
                language: "de".to_owned(),
            },
        }
    }

    pub(crate) fn standing() -> TicketFacts {
        TicketFacts {
            place: vec![("Area".to_owned(), "Standing floor".to_owned())],
            ..seated()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_parts_read_from_the_end() {
        assert_eq!(place_part_kinds(1), vec![PlacePartKind::Area]);
        assert_eq!(
            place_part_kinds(2),
            vec![PlacePartKind::Row, PlacePartKind::Seat]
        );
        assert_eq!(
            place_part_kinds(4),
            vec![
                PlacePartKind::Other(1),
                PlacePartKind::Section,
                PlacePartKind::Row,
                PlacePartKind::Seat
            ]
        );
    }

    #[test]
    fn start_is_written_in_the_venue_offset() {
        let ticket = test_facts::seated();
        assert_eq!(
            starts_local_rfc3339(&ticket).ok().as_deref(),
            Some("2026-12-22T20:00:00+01:00")
        );
    }

    #[test]
    fn keys_can_be_shared_between_request_handlers() {
        fn shareable<T: Send + Sync>() {}
        shareable::<apple::AppleWalletKeys>();
        shareable::<google::GoogleWalletKeys>();
    }

    #[test]
    fn id_parts_are_checked() {
        assert!(check_id_part("serial", "t-42.c_9").is_ok());
        assert!(check_id_part("serial", "").is_err());
        assert!(check_id_part("serial", "a/b").is_err());
    }
}
