//! View models: everything a template shows, computed here so templates
//! hold no logic.

use time::OffsetDateTime;

use crate::db::events::{EventSummary, Tier};
use crate::db::ga::GaAreaView;
use crate::db::holds::Hold;
use crate::db::seats::Seat;
use crate::domain::ids::{EventId, SeatId};
use crate::domain::layout::Flag;
use crate::domain::locale::EventLocale;
use crate::domain::money::{Currency, group_thousands};
use crate::domain::sale::SaleStatus;
use crate::domain::seat::SeatState;
use crate::web::map::SEAT_SIZE;

pub use crate::domain::sale::display_time;

pub fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Seats (in layout order) in words: "3 seats together in Stalls, row A, seats 4–6".
pub fn describe_seats(seats: &[Seat], together: bool) -> String {
    let places: Vec<Place<'_>> = seats
        .iter()
        .map(|seat| Place {
            section: &seat.section,
            row: &seat.row_label,
            seat: &seat.seat_label,
            position: seat.position,
        })
        .collect();
    describe(&places, together)
}

pub fn seat_name(seat: &Seat) -> String {
    format!(
        "{}, row {}, seat {}",
        seat.section, seat.row_label, seat.seat_label
    )
}

pub struct EventHeader {
    pub id: EventId,
    pub name: String,
    pub venue: String,
    pub starts: String,
    /// Counts for people: "1,037".
    pub seats_available: String,
    pub seats_total: String,
    /// "120 of 500 standing places left", when the event has GA areas.
    pub ga_left: Option<String>,
    /// "from €30": the lowest price of anything free now.
    pub from_price: Option<String>,
    pub sold_out: bool,
    pub on_sale: bool,
    /// Why nothing can be bought now ("On sale at …"), if so.
    pub sale_notice: Option<String>,
    /// For staff: "On sale", "Not on sale yet", "Sales closed", …
    pub sale_label: &'static str,
    /// Staff may still close sales / cancel the event.
    pub closable: bool,
    pub cancellable: bool,
}

impl From<&EventSummary> for EventHeader {
    fn from(event: &EventSummary) -> EventHeader {
        let locale = EventLocale::new(event.currency, &event.time_zone);
        EventHeader {
            id: event.id,
            name: event.name.clone(),
            venue: event.venue.clone(),
            starts: locale.time(event.starts_at),
            seats_available: group_thousands(event.seats_available.max(0) as u64),
            seats_total: group_thousands(event.seats_total.max(0) as u64),
            ga_left: (event.ga_total > 0).then(|| {
                format!(
                    "{} of {} standing places left",
                    group_thousands(event.ga_available.max(0) as u64),
                    group_thousands(event.ga_total.max(0) as u64)
                )
            }),
            from_price: event
                .from_cents
                .map(|cents| format!("from {}", locale.price(cents))),
            sold_out: event.seats_available + event.ga_available == 0,
            on_sale: event.sale == SaleStatus::OnSale,
            sale_notice: sale_notice(event.sale, event.on_sale_at, &locale),
            sale_label: match event.sale {
                SaleStatus::OnSale => "On sale",
                SaleStatus::NotYet => "Not on sale yet",
                SaleStatus::Closed => "Sales closed",
                SaleStatus::Started => "Started",
                SaleStatus::Cancelled => "Cancelled",
            },
            closable: !matches!(event.sale, SaleStatus::Closed | SaleStatus::Cancelled),
            cancellable: event.sale != SaleStatus::Cancelled,
        }
    }
}

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
}

impl SeatView {
    pub fn new(seat: &Seat, tiers: &[Tier]) -> SeatView {
        let currency = tiers_currency(tiers);
        let price = currency.format(i64::from(seat.price_cents));
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
            .map(|f| format!(", {}", flag_label(*f)))
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

pub struct ListRow {
    pub label: String,
    pub seats: Vec<SeatView>,
}

pub struct ListSection {
    pub id: i64,
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
                    currency.format(i64::from(cents))
                ),
                _ => "sold out".to_string(),
            },
        })
        .collect()
}

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
            price: tier.currency.format(i64::from(tier.price_cents)),
            cents: tier.price_cents,
        })
        .collect()
}

/// The choices of the best-available form.
pub struct BestForm {
    pub counts: Vec<u32>,
    pub sections: Vec<String>,
    pub tiers: Vec<TierLegend>,
    pub tier_codes: Vec<String>,
}

impl BestForm {
    /// `sections`: the event's section names, in layout order.
    pub fn new(max_seats: u32, sections: Vec<String>, tiers: &[Tier]) -> BestForm {
        BestForm {
            counts: (1..=max_seats).collect(),
            sections,
            tiers: tier_legend(tiers),
            tier_codes: tiers.iter().map(|t| t.code.clone()).collect(),
        }
    }
}

pub struct StatusLegend {
    pub state: &'static str,
    pub glyph: &'static str,
    pub label: &'static str,
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

pub struct HeldSeat {
    pub id: SeatId,
    pub name: String,
    pub tier: String,
    pub price: String,
}

/// "Need more time?": shown from `from` (the last 2 minutes) if unused.
pub struct ExtendOffer {
    pub from: String,
    pub now: bool,
    pub minutes: u64,
}

/// General-admission tickets in a hold, one line per area.
pub struct HeldGa {
    pub area_id: i64,
    pub name: String,
    pub quantity: i32,
    pub tier: String,
    pub price: String,
}

pub struct HoldView {
    pub extend: Option<ExtendOffer>,
    pub expires_at: String,
    pub expires_clock: String,
    pub server_now: String,
    pub remaining: String,
    pub seats: Vec<HeldSeat>,
    pub ga: Vec<HeldGa>,
    pub total: String,
    /// "2 seats", "1 seat and 2 tickets": the selection bar's words.
    pub summary: String,
}

fn selection_summary(seats: usize, tickets: usize) -> String {
    let count = |n: usize, one: &str, many: &str| {
        format!(
            "{} {}",
            group_thousands(n as u64),
            if n == 1 { one } else { many }
        )
    };
    match (seats, tickets) {
        (s, 0) => count(s, "seat", "seats"),
        (0, t) => count(t, "ticket", "tickets"),
        (s, t) => format!(
            "{} and {}",
            count(s, "seat", "seats"),
            count(t, "ticket", "tickets")
        ),
    }
}

/// The hold panel of one event page.
pub struct HoldPanel {
    pub event_id: EventId,
    /// The session's CSRF token, for the panel's forms.
    pub csrf: String,
    /// How long a new hold lasts, for the empty panel's explanation.
    pub hold_minutes: u64,
    pub hold: Option<HoldView>,
    pub buyer_name: String,
    pub buyer_email: String,
    /// The buyer's last hold was released by the box office (and they
    /// have no live hold now): the panel says so.
    pub released_by_box_office: bool,
    /// Rendered as an out-of-band swap (the live feed sends it that way).
    pub oob: bool,
}

impl HoldPanel {
    /// `held` are the seats of `hold` (state Mine), `areas` the event's GA
    /// areas with the hold's tickets. `now` is the database's clock.
    pub fn new(
        event_id: EventId,
        (hold_ttl, extension): (std::time::Duration, std::time::Duration),
        hold: Option<&Hold>,
        (held, areas): (&[&Seat], &[GaAreaView]),
        now: OffsetDateTime,
        csrf: String,
    ) -> HoldPanel {
        let ga: Vec<&GaAreaView> = areas.iter().filter(|area| area.mine > 0).collect();
        let ga_cents: i64 = ga
            .iter()
            .map(|area| i64::from(area.price_cents) * i64::from(area.mine))
            .sum();
        let hold = hold
            .filter(|_| !held.is_empty() || !ga.is_empty())
            .map(|hold| {
                let remaining = (hold.expires_at - now).whole_seconds().max(0);
                let window = time::Duration::seconds(crate::db::holds::EXTENSION_WINDOW_SECS);
                HoldView {
                    extend: (!hold.extended).then(|| ExtendOffer {
                        from: rfc3339(hold.expires_at - window),
                        now: remaining <= window.whole_seconds(),
                        minutes: extension.as_secs().div_ceil(60),
                    }),
                    expires_at: rfc3339(hold.expires_at),
                    expires_clock: hold.locale.clock(hold.expires_at),
                    server_now: rfc3339(now),
                    remaining: format!("{:02}:{:02}", remaining / 60, remaining % 60),
                    seats: held
                        .iter()
                        .map(|seat| HeldSeat {
                            id: seat.id,
                            name: seat_name(seat),
                            tier: seat.tier_name.clone(),
                            price: hold.locale.price(seat.price_cents),
                        })
                        .collect(),
                    ga: ga
                        .iter()
                        .map(|area| HeldGa {
                            area_id: area.id,
                            name: area.name.clone(),
                            quantity: area.mine,
                            tier: area.tier_name.clone(),
                            price: hold
                                .locale
                                .price(i64::from(area.price_cents) * i64::from(area.mine)),
                        })
                        .collect(),
                    total: hold.locale.price(
                        held.iter().map(|s| i64::from(s.price_cents)).sum::<i64>() + ga_cents,
                    ),
                    summary: selection_summary(
                        held.len(),
                        ga.iter().map(|area| area.mine as usize).sum(),
                    ),
                }
            });
        HoldPanel {
            event_id,
            csrf,
            hold_minutes: hold_ttl.as_secs().div_ceil(60),
            hold,
            buyer_name: String::new(),
            buyer_email: String::new(),
            released_by_box_office: false,
            oob: false,
        }
    }
}

/// A general-admission area on the map: what is left, and a picker.
pub struct GaBlock {
    pub id: i64,
    pub name: String,
    pub tier: String,
    pub price: String,
    /// "37 left", "1 left" or "Sold out".
    pub left: String,
    pub sold_out: bool,
    /// The quantities the picker offers.
    pub counts: Vec<i64>,
    /// "You hold 2", when the viewer holds some.
    pub mine: Option<String>,
}

pub fn ga_blocks(areas: &[GaAreaView], max_per_hold: u32, currency: Currency) -> Vec<GaBlock> {
    areas
        .iter()
        .map(|area| {
            let left = area.available.max(0);
            GaBlock {
                id: area.id,
                name: area.name.clone(),
                tier: area.tier_name.clone(),
                price: currency.format(i64::from(area.price_cents)),
                left: if left == 0 {
                    "Sold out".into()
                } else {
                    format!("{left} left")
                },
                sold_out: left == 0,
                counts: (1..=left.min(i64::from(max_per_hold))).collect(),
                mine: (area.mine > 0).then(|| format!("You hold {}", area.mine)),
            }
        })
        .collect()
}

/// What a person reads (and a screen reader says) for this state.
pub fn state_label(state: SeatState) -> &'static str {
    match state {
        SeatState::Available => "available",
        SeatState::Held => "held by another buyer",
        SeatState::Mine => "held by you",
        SeatState::Sold => "sold",
        SeatState::Blocked => "not for sale",
    }
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

/// How people (and screen readers) hear it.
pub fn flag_label(flag: Flag) -> &'static str {
    match flag {
        Flag::Wheelchair => "wheelchair space",
        Flag::Companion => "companion seat",
        Flag::RestrictedView => "restricted view",
    }
}

/// Where a seat is, for describing a result to people.
#[derive(Debug, Clone)]
pub struct Place<'a> {
    pub section: &'a str,
    pub row: &'a str,
    pub seat: &'a str,
    pub position: i32,
}

/// "4 seats together in Orchestra, row C, seats 7–10", or for seats apart
/// "3 seats: Orchestra, row C, seats 7–8; Balcony, row A, seat 2".
/// `places` must be in layout order.
pub fn describe(places: &[Place<'_>], together: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < places.len() {
        let mut j = i;
        while j + 1 < places.len()
            && places[j + 1].section == places[i].section
            && places[j + 1].row == places[i].row
            && places[j + 1].position == places[j].position + 1
        {
            j += 1;
        }
        let seats = if i == j {
            format!("seat {}", places[i].seat)
        } else {
            format!("seats {}–{}", places[i].seat, places[j].seat)
        };
        parts.push(format!(
            "{}, row {}, {}",
            places[i].section, places[i].row, seats
        ));
        i = j + 1;
    }
    let count = places.len();
    let noun = if count == 1 { "seat" } else { "seats" };
    if together && parts.len() == 1 {
        if count == 1 {
            format!("1 seat in {}", parts[0])
        } else {
            format!("{count} {noun} together in {}", parts[0])
        }
    } else {
        format!("{count} {noun}: {}", parts.join("; "))
    }
}

/// For people: None while on sale, else why nothing can be bought.
pub fn sale_notice(
    status: SaleStatus,
    on_sale_at: Option<time::OffsetDateTime>,
    locale: &EventLocale,
) -> Option<String> {
    match status {
        SaleStatus::OnSale => None,
        SaleStatus::NotYet => Some(match on_sale_at {
            Some(at) => format!("On sale at {}.", locale.time(at)),
            None => "Not on sale yet.".into(),
        }),
        SaleStatus::Closed => Some("Sales for this event have closed.".into()),
        SaleStatus::Started => Some("This event has started; tickets are no longer sold.".into()),
        SaleStatus::Cancelled => Some(
            "This event is cancelled. Orders already placed are kept and will be refunded.".into(),
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

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
            section_id,
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

    const TTL: (std::time::Duration, std::time::Duration) = (
        std::time::Duration::from_secs(480),
        std::time::Duration::from_secs(240),
    );

    #[test]
    fn hold_panel_counts_down_from_the_servers_clock() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let hold = Hold {
            id: crate::domain::ids::HoldId(uuid::Uuid::nil()),
            event_id: crate::domain::ids::EventId(1),
            buyer_id: crate::domain::ids::BuyerId(uuid::Uuid::nil()),
            state: crate::db::holds::HoldState::Open,
            expires_at: now + time::Duration::seconds(7 * 60 + 5),
            live: true,
            released_by_staff: false,
            extended: false,
            locale: EventLocale::new(Currency::from_code("GBP").unwrap(), "Europe/London"),
        };
        let a = seat(1, 1, "A", 0.0, 0.0, SeatState::Mine);
        let b = seat(2, 1, "A", 30.0, 0.0, SeatState::Mine);
        let panel = HoldPanel::new(
            crate::domain::ids::EventId(1),
            TTL,
            Some(&hold),
            (&[&a, &b], &[]),
            now,
            String::new(),
        );
        let view = panel.hold.unwrap();
        assert_eq!(view.remaining, "07:05");
        let offer = view
            .extend
            .as_ref()
            .expect("an unextended hold offers more time");
        assert!(!offer.now, "not before the last 2 minutes");
        assert_eq!(offer.minutes, 4);
        assert_eq!(view.total, "£90", "in the event's currency");
        assert_eq!(
            view.expires_clock, "01:07:05 BST",
            "in the venue's zone (London, 1970)"
        );
        assert_eq!(view.summary, "2 seats");
        assert_eq!(view.seats.len(), 2);
        assert!(
            HoldPanel::new(
                crate::domain::ids::EventId(1),
                TTL,
                Some(&hold),
                (&[], &[]),
                now,
                String::new()
            )
            .hold
            .is_none()
        );
    }

    #[test]
    fn describes_results_in_words() {
        let place = |section, row, seat, position| Place {
            section,
            row,
            seat,
            position,
        };
        let together = [
            place("Section B", "3", "7", 6),
            place("Section B", "3", "8", 7),
            place("Section B", "3", "9", 8),
            place("Section B", "3", "10", 9),
        ];
        assert_eq!(
            describe(&together, true),
            "4 seats together in Section B, row 3, seats 7–10"
        );
        let apart = [
            place("Orchestra", "C", "7", 6),
            place("Orchestra", "C", "8", 7),
            place("Balcony", "A", "2", 1),
        ];
        assert_eq!(
            describe(&apart, false),
            "3 seats: Orchestra, row C, seats 7–8; Balcony, row A, seat 2"
        );
        assert_eq!(
            describe(&together[..1], true),
            "1 seat in Section B, row 3, seat 7"
        );
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
