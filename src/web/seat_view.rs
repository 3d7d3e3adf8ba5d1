//! One seat as the map draws it (a button with its place, tier, state and
//! words for a screen reader), and the legends beside the map. Shared by
//! the buyer's map and the box-office console.

use crate::db::events::Tier;
use crate::domain::ids::SeatId;
use crate::domain::layout::Flag;
use crate::domain::money::Currency;
use crate::domain::seat::Seat;
use crate::domain::seat::SeatState;
use crate::i18n::{t, t1};
use crate::words::{rfc3339, seat_name};

/// A seat's drawn size, in map units (seats are placed by their centres).
pub const SEAT_SIZE: f32 = 26.0;

pub struct SeatView {
    pub id: SeatId,
    /// css modifier: available, held, mine, sold, blocked
    pub state: &'static str,
    /// The form field the button submits: hold, release or inspect.
    pub action: &'static str,
    pub label: String,
    pub text: String,
    pub tier_class: String,
    pub left: f32,
    pub top: f32,
    pub pressed: Option<&'static str>,
    pub taken: bool,
    /// Just found by best available: drawn with a highlight ring.
    pub fresh: bool,
    /// Row index, for arrow-key moves between rows.
    pub row: i32,
    /// When its hold runs out (held seats), so the page can refresh it then.
    pub held_until: Option<String>,
    /// css classes for accessible-seat flags, e.g. "seat--wheelchair".
    pub flag_classes: String,
    /// For a free seat kept for wheelchair users: what a buyer picking it
    /// by hand is asked first.
    pub confirm_pick: Option<String>,
}

impl SeatView {
    pub fn new(seat: &Seat, tiers: &[Tier]) -> SeatView {
        let currency = tiers_currency(tiers);
        let price = currency.format_in(i64::from(seat.price_cents), crate::i18n::current());
        let (action, pressed, taken) = match seat.state {
            SeatState::Available => ("hold", Some("false"), false),
            SeatState::Mine => ("release", Some("true"), false),
            SeatState::Held | SeatState::Sold | SeatState::Blocked => ("inspect", None, true),
        };
        let glyph = state_glyph(seat.state);
        let flags: Vec<Flag> = seat
            .accessibility
            .iter()
            .filter_map(|f| Flag::from_db(f))
            .collect();
        let flag_words: String = flags
            .iter()
            .map(|f| match (f, &seat.view_note) {
                (Flag::RestrictedView, Some(note)) => {
                    format!(", {}", t1("flag-restricted-view-because", "why", note))
                }
                _ => format!(", {}", flag_label(*f)),
            })
            .collect();
        SeatView {
            id: seat.id,
            state: seat.state.as_str(),
            action,
            label: format!(
                "{}, {} {}{}, {}",
                seat_name(seat),
                seat.tier_name,
                price,
                flag_words,
                state_label(seat.state)
            ),
            text: if glyph.is_empty() {
                seat.seat_label.clone()
            } else {
                glyph.to_string()
            },
            tier_class: tier_class(tiers, &seat.tier_code),
            left: seat.x - SEAT_SIZE / 2.0,
            top: seat.y - SEAT_SIZE / 2.0,
            pressed,
            taken,
            fresh: false,
            row: seat.row_index,
            held_until: seat.held_until.map(rfc3339),
            confirm_pick: match seat.state {
                SeatState::Available => pick_question(&flags),
                _ => None,
            },
            flag_classes: flags
                .iter()
                .map(|f| format!(" seat--{}", f.as_str().replace('_', "-")))
                .collect(),
        }
    }

    /// On the staff map every seat is a plain button that selects it (to
    /// show who holds or bought it); the selected one is ringed.
    pub fn for_staff(&mut self, selected: Option<SeatId>) {
        self.action = "seat";
        self.pressed = None;
        self.taken = false;
        self.fresh = selected == Some(self.id);
    }

    pub fn highlighted(mut self, fresh_ids: &[SeatId]) -> SeatView {
        self.fresh = fresh_ids.contains(&self.id);
        self
    }
}

/// The currency an event's tiers are priced in (every tier of an event has
/// the event's).
pub(crate) fn tiers_currency(tiers: &[Tier]) -> Currency {
    tiers.first().map(|t| t.currency).unwrap_or_default()
}

/// Each tier's fill (colour and pattern), by its place in the price list.
pub(crate) fn tier_class(tiers: &[Tier], code: &str) -> String {
    let index = tiers.iter().position(|t| t.code == code).unwrap_or(0);
    format!("tier-{}", index % TIER_FILLS)
}

/// How many distinct tier fills the stylesheet has; more tiers reuse them.
const TIER_FILLS: usize = 8;

pub struct TierLegend {
    pub class: String,
    pub name: String,
    pub price: String,
    pub cents: i32,
}

pub fn tier_legend(tiers: &[Tier]) -> Vec<TierLegend> {
    tiers
        .iter()
        .map(|tier| TierLegend {
            class: tier_class(tiers, &tier.code),
            name: tier.name.clone(),
            price: tier
                .currency
                .format_in(i64::from(tier.price_cents), crate::i18n::current()),
            cents: tier.price_cents,
        })
        .collect()
}

pub struct StatusLegend {
    pub state: &'static str,
    pub glyph: &'static str,
    pub label: String,
}

pub fn status_legend() -> Vec<StatusLegend> {
    SeatState::ALL
        .iter()
        .map(|state| StatusLegend {
            state: state.as_str(),
            glyph: state_glyph(*state),
            label: state_label(*state),
        })
        .collect()
}

/// What a person reads (and a screen reader says) for this state.
pub fn state_label(state: SeatState) -> String {
    t(match state {
        SeatState::Available => "seat-state-available",
        SeatState::Held => "seat-state-held",
        SeatState::Mine => "seat-state-mine",
        SeatState::Sold => "seat-state-sold",
        SeatState::Blocked => "seat-state-blocked",
    })
}

/// A glyph drawn on the seat, so the state never depends on colour alone.
pub fn state_glyph(state: SeatState) -> &'static str {
    match state {
        SeatState::Available => "",
        SeatState::Held => "◷",
        SeatState::Mine => "✓",
        SeatState::Sold => "✕",
        SeatState::Blocked => "—",
    }
}

/// Best available keeps wheelchair spaces and companion seats for those
/// who need them; a buyer may pick one by hand, after saying it is for that.
fn pick_question(flags: &[Flag]) -> Option<String> {
    if flags.contains(&Flag::Wheelchair) {
        Some(t("confirm-wheelchair-space"))
    } else if flags.contains(&Flag::Companion) {
        Some(t("confirm-companion-seat"))
    } else {
        None
    }
}

/// How people (and screen readers) hear it.
pub fn flag_label(flag: Flag) -> String {
    t(match flag {
        Flag::Wheelchair => "flag-wheelchair",
        Flag::Companion => "flag-companion",
        Flag::RestrictedView => "flag-restricted-view",
        Flag::Aisle => "flag-aisle",
        Flag::StepFree => "flag-step-free",
        Flag::HearingLoop => "flag-hearing-loop",
        Flag::LiftUpArmrest => "flag-lift-up-armrest",
        Flag::ExtraLegroom => "flag-extra-legroom",
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::ids::SectionId;

    pub(crate) fn seat(
        id: i64,
        section_id: i64,
        row: &str,
        x: f32,
        y: f32,
        state: SeatState,
    ) -> Seat {
        Seat {
            id: SeatId(id),
            section: format!("S{section_id}"),
            section_id: SectionId(section_id),
            row_label: row.into(),
            seat_label: id.to_string(),
            row_index: 0,
            position: 0,
            x,
            y,
            tier_code: "std".into(),
            tier_name: "Standard".into(),
            price_cents: 4500,
            state,
            accessibility: Vec::new(),
            view_note: None,
            held_until: None,
            holder: None,
        }
    }

    pub(crate) fn tiers() -> Vec<Tier> {
        vec![Tier {
            code: "std".into(),
            name: "Standard".into(),
            price_cents: 4500,
            currency: Currency::default(),
        }]
    }

    #[test]
    fn seat_buttons_say_everything_a_screen_reader_needs() {
        let view = SeatView::new(&seat(7, 1, "C", 0.0, 0.0, SeatState::Held), &tiers());
        assert_eq!(
            view.label,
            "S1, row C, seat 7, Standard €45, held by another buyer"
        );
        assert_eq!(view.action, "inspect");
        assert!(view.taken);
        assert_eq!(view.text, "◷");
        let mine = SeatView::new(&seat(8, 1, "C", 30.0, 0.0, SeatState::Mine), &tiers());
        assert_eq!((mine.action, mine.pressed), ("release", Some("true")));
    }

    #[test]
    fn every_state_but_available_has_a_glyph_and_all_glyphs_differ() {
        let glyphs: Vec<&str> = SeatState::ALL
            .iter()
            .filter(|s| **s != SeatState::Available)
            .map(|s| state_glyph(*s))
            .collect();
        assert!(glyphs.iter().all(|g| !g.is_empty()));
        let mut unique = glyphs.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), glyphs.len());
    }
}
