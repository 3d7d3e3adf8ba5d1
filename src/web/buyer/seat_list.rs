//! The seat map as a list, section by section (for small screens and
//! screen readers), and the links to an arena's sections.

use crate::db::events::Tier;
use crate::domain::ids::EventId;
use crate::domain::ids::SectionId;
use crate::domain::money::{Currency, group_thousands};
use crate::domain::seat::Seat;
use crate::domain::seat::SeatState;
use crate::web::seat_view::SeatView;

pub struct ListRow {
    pub label: String,
    pub seats: Vec<SeatView>,
}

pub struct ListSection {
    pub id: SectionId,
    pub name: String,
    pub rows: Vec<ListRow>,
}

/// The list view: only seats the buyer can act on (available, or theirs),
/// grouped by section and row, in layout order. Empty rows are left out.
pub fn list_sections(seats: &[Seat], tiers: &[Tier]) -> Vec<ListSection> {
    let mut sections: Vec<ListSection> = Vec::new();
    for seat in seats
        .iter()
        .filter(|s| matches!(s.state, SeatState::Available | SeatState::Mine))
    {
        if sections.last().is_none_or(|s| s.id != seat.section_id) {
            sections.push(ListSection {
                id: seat.section_id,
                name: seat.section.clone(),
                rows: Vec::new(),
            });
        }
        let section = sections.last_mut().expect("pushed above");
        if section
            .rows
            .last()
            .is_none_or(|r| r.label != seat.row_label)
        {
            section.rows.push(ListRow {
                label: seat.row_label.clone(),
                seats: Vec::new(),
            });
        }
        let row = section.rows.last_mut().expect("pushed above");
        row.seats.push(SeatView::new(seat, tiers));
    }
    sections
}

/// A section in the list view of a big venue: a link to its seats.
pub struct SectionLink {
    pub href: String,
    pub name: String,
    /// "480 of 500 seats left · from €45"
    pub summary: String,
}

pub fn section_links(
    event_id: EventId,
    shapes: &crate::db::map::MapShapes,
    currency: Currency,
) -> Vec<SectionLink> {
    shapes
        .sections
        .iter()
        .map(|s| SectionLink {
            href: format!("/events/{event_id}/list?section={}", s.id),
            name: s.name.clone(),
            summary: match s.from_cents {
                Some(cents) if s.seats_available > 0 => format!(
                    "{} of {} seats left · from {}",
                    group_thousands(s.seats_available as u64),
                    group_thousands(s.seats_total.max(0) as u64),
                    currency.format_in(i64::from(cents), crate::i18n::current())
                ),
                _ => "sold out".to_string(),
            },
        })
        .collect()
}
