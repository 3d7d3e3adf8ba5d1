//! The buyer's hold panel: what is held, the countdown, the offer of more
//! time, the general-admission blocks and the best-available form.

use crate::db::charges::PanelOffer;
use crate::db::events::Tier;
use crate::db::ga::GaAreaView;
use crate::domain::hold::Hold;
use crate::domain::ids::AreaId;
use crate::domain::ids::{EventId, SeatId};
use crate::domain::money::Currency;
use crate::domain::payment::PaymentMode;
use crate::domain::price_type::TypeOffer;
use crate::domain::promo::Discount;
use crate::domain::seat::Seat;
use crate::web::seat_view::{TierLegend, tier_legend};
use crate::words::{rfc3339, seat_name};
use time::OffsetDateTime;

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

pub struct HeldSeat {
    pub id: SeatId,
    pub name: String,
    pub tier: String,
    pub price: String,
    /// The price shown, in minor units (the chosen type's when it has types).
    pub cents: i64,
    /// The price types it may be bought as (none when the event sells no
    /// types), the first chosen.
    pub choices: Vec<TypeChoice>,
}

/// One price type a held seat may be bought as.
pub struct TypeChoice {
    pub code: String,
    /// "Child · €25.00": the price is in the option, so a page without
    /// JavaScript shows each choice's cost.
    pub text: String,
    /// The price alone, and in minor units (the script totals them).
    pub price: String,
    pub cents: i64,
    pub selected: bool,
    /// Unlocked by the hold's promo code, or sold only beside another
    /// type: never the default.
    pub hidden: bool,
}

/// "Need more time?": shown from `from` (the last 2 minutes) if unused.
pub struct ExtendOffer {
    pub from: String,
    pub now: bool,
    pub minutes: u64,
}

/// General-admission tickets in a hold, one line per area.
pub struct HeldGa {
    pub area_id: AreaId,
    pub name: String,
    pub quantity: i32,
    pub tier: String,
    pub price: String,
    /// One ticket's price, in minor units.
    pub unit_cents: i64,
    /// A type choice per place, when the event sells types (none otherwise).
    pub places: Vec<GaPlace>,
}

/// One general-admission place of a hold, bought as a price type.
pub struct GaPlace {
    /// Its key for the script ("ga-7-0"), and its buy form field
    /// ("type_ga_7_0").
    pub key: String,
    pub field: String,
    /// "Floor, place 1": what its select is labelled with.
    pub name: String,
    pub price: String,
    pub cents: i64,
    pub choices: Vec<TypeChoice>,
}

/// The booking fee and tax lines under a hold's seats, and what the script
/// recomputes them with when a type is chosen.
pub struct ChargeLines {
    /// "Booking fees" and their sum, when the event charges one.
    pub fees: Option<(String, String)>,
    /// "Including VAT 19 %" (or "Tax 8.5 %") and the tax, when it has one.
    pub tax: Option<(String, String)>,
    pub fee_cents: i32,
    /// 0 without a tax line.
    pub tax_hundredths: i32,
    pub tax_included: bool,
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
    /// The checkout form's heading and button, by how the event is paid
    /// for: "Buy now" / "Buy for €110", "Checkout" / "Pay €110", or
    /// "Reserve" / "Reserve, pay €110 at the box office".
    pub buy_heading: String,
    pub buy_label: String,
    /// The GA tickets' part of the total, in minor units, and the
    /// currency's code: what the script re-totals chosen types with.
    pub ga_cents: i64,
    /// Each GA ticket's price, comma-separated: the script charges each its
    /// fee and tax, as a purchase does.
    pub ga_units: String,
    pub currency: String,
    /// Whether the event sells with price types or codes (the form then
    /// asks for a code).
    pub offers_codes: bool,
    /// The promo code applied to the hold, when there is one.
    pub code: Option<AppliedView>,
    pub charges: ChargeLines,
}

/// A promo code applied to the hold: its discount line (when it takes
/// anything off the tickets chosen), and its rule for the script.
pub struct AppliedView {
    pub code: String,
    pub discount: Option<(String, String)>,
    /// Percent off each ticket, or 0.
    pub percent: i32,
    /// Minor units off each ticket, or 0.
    pub amount_cents: i32,
    /// The type codes it applies to, comma-separated (empty: every seat).
    pub types: String,
}

fn selection_summary(seats: usize, tickets: usize) -> String {
    crate::i18n::t2("selection-summary", "seats", seats, "tickets", tickets)
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
    /// Without a live hold: the buyer's order waiting for its payment,
    /// whose seats are still theirs (after leaving the payment page, say).
    pub awaiting: Option<AwaitingView>,
    /// Rendered as an out-of-band swap (the live feed sends it that way).
    pub oob: bool,
}

/// An order of the buyer's that waits for its payment, on the panel.
pub struct AwaitingView {
    /// Its page, which has the button that pays.
    pub order_url: String,
    pub places: Vec<String>,
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
                            cents: i64::from(seat.price_cents),
                            choices: Vec::new(),
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
                            unit_cents: i64::from(area.price_cents),
                            places: Vec::new(),
                        })
                        .collect(),
                    total: hold.locale.price(
                        held.iter().map(|s| i64::from(s.price_cents)).sum::<i64>() + ga_cents,
                    ),
                    summary: selection_summary(
                        held.len(),
                        ga.iter().map(|area| area.mine as usize).sum(),
                    ),
                    buy_heading: crate::i18n::t(match hold.payment {
                        PaymentMode::None => "buy-heading-now",
                        PaymentMode::Online => "buy-heading-checkout",
                        PaymentMode::BoxOffice => "buy-heading-reserve",
                    }),
                    buy_label: buy_label(
                        hold.payment,
                        &hold.locale.price(
                            held.iter().map(|s| i64::from(s.price_cents)).sum::<i64>() + ga_cents,
                        ),
                    ),
                    ga_cents,
                    ga_units: ga
                        .iter()
                        .flat_map(|area| (0..area.mine).map(|_| area.price_cents.to_string()))
                        .collect::<Vec<_>>()
                        .join(","),
                    currency: hold.locale.currency.code(),
                    offers_codes: false,
                    code: None,
                    charges: ChargeLines {
                        fees: None,
                        tax: None,
                        fee_cents: 0,
                        tax_hundredths: 0,
                        tax_included: true,
                    },
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
            awaiting: None,
            oob: false,
        }
    }

    /// Offers each held seat the price types its tier has a price in, the
    /// first chosen, and prices the seat, the total and the button by the
    /// choices (the event's types, when it sells them).
    /// A hidden type is offered only when `unlocked` names it (the code
    /// applied to the hold unlocks it); it is never the one chosen first.
    pub fn offer_types(
        &mut self,
        types: &[TypeOffer],
        unlocked: Option<&str>,
        (held, areas): (&[&Seat], &[GaAreaView]),
        hold: &Hold,
    ) {
        let Some(view) = self.hold.as_mut() else {
            return;
        };
        if types.is_empty() {
            return;
        }
        let offered = |kind: &&TypeOffer| !kind.hidden || unlocked == Some(kind.code.as_str());
        // The types a place of `tier_code` may be bought as, the first
        // public one chosen: its price, or None when none prices the tier.
        let choices_for = |tier_code: &str| -> (Vec<TypeChoice>, Option<(String, i64)>) {
            let mut choices: Vec<TypeChoice> = types
                .iter()
                .filter(offered)
                .filter_map(|kind| {
                    kind.prices.get(tier_code).map(|cents| {
                        let price = hold.locale.price(i64::from(*cents));
                        TypeChoice {
                            code: kind.code.clone(),
                            text: format!("{} · {price}", kind.label),
                            price,
                            cents: i64::from(*cents),
                            selected: false,
                            hidden: kind.hidden || kind.needs_other,
                        }
                    })
                })
                .collect();
            let first = choices
                .iter_mut()
                .find(|choice| !choice.hidden)
                .map(|first| {
                    first.selected = true;
                    (first.price.clone(), first.cents)
                });
            (choices, first)
        };
        let mut seats_cents = 0;
        for (shown, seat) in view.seats.iter_mut().zip(held) {
            let (choices, first) = choices_for(&seat.tier_code);
            shown.choices = choices;
            match first {
                Some((price, cents)) => {
                    shown.price = price;
                    shown.cents = cents;
                    seats_cents += cents;
                }
                None => seats_cents += i64::from(seat.price_cents),
            }
        }
        let mut ga_cents = 0;
        for line in view.ga.iter_mut() {
            let area = areas.iter().find(|area| area.id == line.area_id);
            // An area whose tier no type prices sells at its tier's price.
            let Some(area) = area.filter(|area| choices_for(&area.tier).1.is_some()) else {
                ga_cents += line.unit_cents * i64::from(line.quantity);
                continue;
            };
            line.places = (0..line.quantity.max(0))
                .map(|n| {
                    let (choices, first) = choices_for(&area.tier);
                    let (price, cents) = first
                        .unwrap_or_else(|| (hold.locale.price(line.unit_cents), line.unit_cents));
                    ga_cents += cents;
                    GaPlace {
                        key: format!("ga-{}-{n}", line.area_id),
                        field: format!("type_ga_{}_{n}", line.area_id),
                        name: crate::i18n::t2(
                            "hold-ga-place",
                            "area",
                            line.name.as_str(),
                            "n",
                            n + 1,
                        ),
                        price,
                        cents,
                        choices,
                    }
                })
                .collect();
        }
        view.ga_cents = ga_cents;
        // A GA place with a select is priced by it; the script adds the
        // others as their tier's units.
        view.ga_units = view
            .ga
            .iter()
            .filter(|line| line.places.is_empty())
            .flat_map(|line| (0..line.quantity).map(|_| line.unit_cents.to_string()))
            .collect::<Vec<_>>()
            .join(",");
        let total = hold.locale.price(seats_cents + ga_cents);
        view.buy_label = buy_label(hold.payment, &total);
        view.total = total;
    }
}

impl HoldPanel {
    /// Adds the applied promo code's discount and the event's booking fee
    /// and tax to the panel: their lines, and the total and button with
    /// them (as a purchase prices its tickets, each on its own).
    pub fn charge(&mut self, offer: &PanelOffer, hold: &Hold) {
        let Some(view) = self.hold.as_mut() else {
            return;
        };
        let charges = offer.charges;
        let mut tickets: Vec<(i64, i64)> = Vec::new();
        for seat in &view.seats {
            let chosen = seat.choices.iter().find(|choice| choice.selected);
            let discount = match (&offer.applied, chosen) {
                (Some(code), Some(chosen)) if code.applies_to(&chosen.code) => {
                    code.discount.off(seat.cents as i32).into()
                }
                (Some(code), None) if code.price_types.is_none() => {
                    code.discount.off(seat.cents as i32).into()
                }
                _ => 0,
            };
            tickets.push((seat.cents - discount, discount));
        }
        for line in &view.ga {
            if line.places.is_empty() {
                // No types: a code that names none takes its discount off
                // each place too, as a purchase does.
                let discount: i64 = match &offer.applied {
                    Some(code) if code.price_types.is_none() => {
                        code.discount.off(line.unit_cents as i32).into()
                    }
                    _ => 0,
                };
                tickets.extend((0..line.quantity).map(|_| (line.unit_cents - discount, discount)));
            }
            for place in &line.places {
                let chosen = place.choices.iter().find(|choice| choice.selected);
                let discount = match (&offer.applied, chosen) {
                    (Some(code), Some(chosen)) if code.applies_to(&chosen.code) => {
                        code.discount.off(place.cents as i32).into()
                    }
                    _ => 0,
                };
                tickets.push((place.cents - discount, discount));
            }
        }
        let totals = charges.totals(&tickets);
        view.code = offer.applied.as_ref().map(|code| AppliedView {
            code: code.code.clone(),
            discount: (totals.discount_cents > 0).then(|| {
                let label = crate::i18n::t1("receipt-discount", "code", code.code.as_str());
                (
                    label,
                    format!("−{}", hold.locale.price(totals.discount_cents)),
                )
            }),
            percent: match code.discount {
                Discount::Percent(percent) => percent,
                Discount::Amount(_) => 0,
            },
            amount_cents: match code.discount {
                Discount::Amount(cents) => cents,
                Discount::Percent(_) => 0,
            },
            types: code
                .price_types
                .as_ref()
                .map(|types| types.join(","))
                .unwrap_or_default(),
        });
        view.offers_codes = offer.has_codes;
        view.charges = ChargeLines {
            fees: (totals.fees_cents > 0).then(|| {
                (
                    crate::i18n::t("receipt-fees"),
                    hold.locale.price(totals.fees_cents),
                )
            }),
            tax: charges.tax.map(|tax| {
                (
                    crate::i18n::receipt::tax_label(tax),
                    hold.locale.price(totals.tax_cents),
                )
            }),
            fee_cents: charges.booking_fee_cents,
            tax_hundredths: charges.tax.map_or(0, |tax| tax.rate_hundredths),
            tax_included: charges.tax.is_none_or(|tax| tax.included),
        };
        let total = hold.locale.price(totals.total_cents);
        view.buy_label = buy_label(hold.payment, &total);
        view.total = total;
    }
}

fn buy_label(payment: PaymentMode, total: &str) -> String {
    let key = match payment {
        PaymentMode::None => "buy-label-now",
        PaymentMode::Online => "buy-label-online",
        PaymentMode::BoxOffice => "buy-label-reserve",
    };
    crate::i18n::t1(key, "total", total)
}

/// A general-admission area on the map: what is left, and a picker.
pub struct GaBlock {
    pub id: AreaId,
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
                price: currency.format_in(i64::from(area.price_cents), crate::i18n::current()),
                left: if left == 0 {
                    crate::i18n::t("sold-out")
                } else {
                    crate::i18n::t1("ga-left", "count", left)
                },
                sold_out: left == 0,
                counts: (1..=left.min(i64::from(max_per_hold))).collect(),
                mine: (area.mine > 0).then(|| crate::i18n::t1("ga-mine", "count", area.mine)),
            }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::seat::SeatState;
    use crate::web::seat_view::tests::seat;

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
            state: crate::domain::hold::HoldState::Open,
            expires_at: now + time::Duration::seconds(7 * 60 + 5),
            live: true,
            released_by_staff: false,
            extended: false,
            locale: crate::i18n::locale(Currency::from_code("GBP").unwrap(), "Europe/London"),
            payment: PaymentMode::None,
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
}
