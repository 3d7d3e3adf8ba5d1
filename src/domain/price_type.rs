//! Price types: the same seat sold as Adult, Child or Student, each at its
//! own price for the seat's tier, perhaps with a quota. The rules a list of
//! types must keep, and how a purchase's choices become priced lines, are
//! here; the counting is PostgreSQL's (`db::price_types`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use super::price_choice::{Choices, MAX_CHOICES, Place, choices, form_choices};
use super::refusal::Invalid;

/// The most types an event may have.
pub const MAX_PRICE_TYPES: usize = 20;
/// The longest label, in characters.
pub const MAX_LABEL_CHARS: usize = 60;
pub use super::money::MAX_PRICE_CENTS;

/// One type as staff give it, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceTypeSpec {
    pub code: String,
    /// By language tag; "en" always present.
    pub labels: BTreeMap<String, String>,
    /// By tier code.
    pub prices: BTreeMap<String, i32>,
    pub quota: Option<i32>,
    pub max_per_order: Option<i32>,
    pub closed: bool,
    /// Offered only to buyers whose promo code unlocks it ("Members").
    pub hidden: bool,
    /// Sold only in an order that has a ticket of this other type too (a
    /// child ticket only with an adult one).
    pub requires: Option<String>,
}

fn invalid(text: impl Into<String>) -> Invalid {
    Invalid::PriceType(text.into())
}

fn valid_code(code: &str) -> bool {
    let mut chars = code.chars();
    code.len() <= 40
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// Checks a whole list of types for an event whose tiers are `tiers` (by
/// code): codes well formed and distinct, an English label, known tiers,
/// prices and limits in range, and at least one type open for sale.
pub fn check_list(specs: &[PriceTypeSpec], tiers: &BTreeSet<String>) -> Result<(), Invalid> {
    if specs.len() > MAX_PRICE_TYPES {
        return Err(invalid(format!(
            "at most {MAX_PRICE_TYPES} price types an event"
        )));
    }
    let mut codes = BTreeSet::new();
    for spec in specs {
        if !valid_code(&spec.code) {
            return Err(invalid(format!(
                "{:?} is not a price type code: 1 to 40 of a-z, 0-9, _ and -, starting with a letter or digit",
                spec.code
            )));
        }
        if !codes.insert(spec.code.as_str()) {
            return Err(invalid(format!("{} is listed twice", spec.code)));
        }
        match spec.labels.get("en") {
            Some(label) if !label.trim().is_empty() => {}
            _ => return Err(invalid(format!("{} needs an English label", spec.code))),
        }
        for (lang, label) in &spec.labels {
            if !["en", "de", "fr", "es"].contains(&lang.as_str()) {
                return Err(invalid(format!(
                    "{}: {lang:?} is not one of our languages (en, de, fr, es)",
                    spec.code
                )));
            }
            if label.trim().is_empty()
                || label.chars().count() > MAX_LABEL_CHARS
                || label.chars().any(char::is_control)
            {
                return Err(invalid(format!(
                    "{}: a label is 1 to {MAX_LABEL_CHARS} plain characters",
                    spec.code
                )));
            }
        }
        if spec.prices.is_empty() {
            return Err(invalid(format!("{} has no price for any tier", spec.code)));
        }
        for (tier, cents) in &spec.prices {
            if !tiers.contains(tier) {
                return Err(Invalid::UnknownTier(tier.clone()));
            }
            if i64::from(*cents) > MAX_PRICE_CENTS || *cents < 0 {
                return Err(invalid(format!(
                    "{}: the price for {tier} is out of range",
                    spec.code
                )));
            }
        }
        if spec.quota.is_some_and(|q| q < 0) {
            return Err(invalid(format!("{}: a quota is 0 or more", spec.code)));
        }
        if spec.max_per_order.is_some_and(|m| m < 1) {
            return Err(invalid(format!(
                "{}: max_per_order is 1 or more",
                spec.code
            )));
        }
    }
    for spec in specs {
        if let Some(other) = &spec.requires
            && (other == &spec.code || !specs.iter().any(|s| &s.code == other))
        {
            return Err(invalid(format!(
                "{}: requires names another type of this list",
                spec.code
            )));
        }
    }
    if !specs.is_empty()
        && specs
            .iter()
            .all(|s| s.closed || s.hidden || s.requires.is_some())
    {
        return Err(invalid(
            "at least one public price type that needs no other must be open for sale (the default)",
        ));
    }
    Ok(())
}

/// A type's label in `lang`, else in English, from its labels as stored
/// (a JSON object by language tag).
pub fn label_in(labels_json: &str, lang: &str) -> Option<String> {
    let labels: BTreeMap<String, String> = serde_json::from_str(labels_json).ok()?;
    labels.get(lang).or_else(|| labels.get("en")).cloned()
}

/// An open type as the hold panel offers it: its label in the page's
/// language and its price by tier code.
#[derive(Debug, Clone)]
pub struct TypeOffer {
    pub code: String,
    pub label: String,
    pub prices: HashMap<String, i32>,
    /// Offered only with the promo code that unlocks it.
    pub hidden: bool,
    /// Sold only beside a ticket of another type: never the default.
    pub needs_other: bool,
}

/// A type as a purchase sees it: its id, code, limits and prices by tier id.
#[derive(Debug, Clone)]
pub struct OnSale {
    pub id: i64,
    pub code: String,
    pub max_per_order: Option<i32>,
    pub closed: bool,
    /// Sold only with a promo code that unlocks it.
    pub hidden: bool,
    /// The code of a type the order must also have.
    pub requires: Option<String>,
    /// It has a quota: purchases count what they sell of it.
    pub limited: bool,
    pub prices: HashMap<i64, i32>,
}

/// A held place to sell (a seat, or one GA place): its tier's id.
#[derive(Debug, Clone, Copy)]
pub struct HeldPlace {
    pub place: Place,
    pub tier_id: i64,
    /// Its tier's own price (what it sells at when the event has no types).
    pub tier_price_cents: i32,
}

/// A place's line: sold as which type, at what price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PricedLine {
    pub place: Place,
    /// None: the event sells no types (the tier's price).
    pub price_type_id: Option<i64>,
    /// What the buyer pays for it: its price less `discount_cents`.
    pub price_cents: i32,
    pub discount_cents: i32,
}

/// Each held place at its tier's price: an event with no types.
pub fn tier_lines(held: &[HeldPlace]) -> Vec<PricedLine> {
    held.iter()
        .map(|seat| PricedLine {
            place: seat.place,
            price_type_id: None,
            price_cents: seat.tier_price_cents,
            discount_cents: 0,
        })
        .collect()
}

/// Splits the held places into those sold as a type (named one, or with a
/// default type for their tier) and those no open public type prices,
/// which sell at their tier's price as they did before the event had
/// types (the hold panel shows them so).
pub fn split_untyped(
    held: &[HeldPlace],
    types: &[OnSale],
    chosen: &BTreeMap<Place, String>,
) -> (Vec<HeldPlace>, Vec<HeldPlace>) {
    held.iter().partition(|place| {
        chosen.contains_key(&place.place)
            || types.iter().any(|t| {
                !t.closed
                    && !t.hidden
                    && t.requires.is_none()
                    && t.prices.contains_key(&place.tier_id)
            })
    })
}

/// Prices each held seat as the type the buyer chose for it (the default
/// when they named none: the first open type priced for the seat's tier,
/// as the hold panel and the counter choose it): a named seat that isn't in
/// the hold, an unknown or closed type, a type with no price for the seat's
/// tier, or more of a type than its `max_per_order` is refused, naming the
/// rule. `types` are in their order.
pub fn price_lines(
    held: &[HeldPlace],
    types: &[OnSale],
    chosen: &BTreeMap<Place, String>,
    unlocked: Option<&str>,
) -> Result<Vec<PricedLine>, Invalid> {
    for place in chosen.keys() {
        if !held.iter().any(|h| h.place == *place) {
            return Err(Invalid::PriceTypeRule(format!(
                "{place} is not in this hold"
            )));
        }
    }
    let mut counts: HashMap<i64, i32> = HashMap::new();
    let mut lines = Vec::with_capacity(held.len());
    for seat in held {
        let kind = match chosen.get(&seat.place) {
            // The first public type that needs no other: a hidden one, or
            // a child ticket that needs an adult, is never a default.
            None => types
                .iter()
                .find(|t| {
                    !t.closed
                        && !t.hidden
                        && t.requires.is_none()
                        && t.prices.contains_key(&seat.tier_id)
                })
                .ok_or_else(|| {
                    Invalid::PriceTypeRule(format!("{} has no ticket type on sale", seat.place))
                })?,
            // A hidden type is unknown to a buyer without its code.
            Some(code) => types
                .iter()
                .find(|t| t.code == *code && !t.closed && (!t.hidden || unlocked == Some(code)))
                .ok_or_else(|| Invalid::UnknownPriceType(code.clone()))?,
        };
        let price = kind.prices.get(&seat.tier_id).ok_or_else(|| {
            Invalid::PriceTypeRule(format!(
                "{} can't be sold as {}: its tier has no {} price",
                seat.place, kind.code, kind.code
            ))
        })?;
        let count = counts.entry(kind.id).or_default();
        *count += 1;
        if kind.max_per_order.is_some_and(|max| *count > max) {
            return Err(Invalid::PriceTypeRule(format!(
                "at most {} {} tickets an order",
                kind.max_per_order.unwrap_or_default(),
                kind.code
            )));
        }
        lines.push(PricedLine {
            place: seat.place,
            price_type_id: Some(kind.id),
            price_cents: *price,
            discount_cents: 0,
        });
    }
    for kind in types.iter().filter(|t| counts.contains_key(&t.id)) {
        let Some(needed) = &kind.requires else {
            continue;
        };
        let has_needed = types
            .iter()
            .any(|t| &t.code == needed && counts.contains_key(&t.id));
        if !has_needed {
            return Err(Invalid::PriceTypeRule(format!(
                "{} tickets are sold only with a {needed} ticket in the same order",
                kind.code
            )));
        }
    }
    Ok(lines)
}

/// How many of each type the lines sell, by type id in id order: the order
/// quotas are counted (and so their rows locked) in.
pub fn counts_by_type(lines: &[PricedLine]) -> Vec<(i64, i32)> {
    let mut counts: BTreeMap<i64, i32> = BTreeMap::new();
    for type_id in lines.iter().filter_map(|line| line.price_type_id) {
        *counts.entry(type_id).or_default() += 1;
    }
    counts.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::SeatId;

    fn spec(code: &str, prices: &[(&str, i32)]) -> PriceTypeSpec {
        PriceTypeSpec {
            code: code.into(),
            labels: BTreeMap::from([("en".to_string(), code.to_uppercase())]),
            prices: prices.iter().map(|(t, c)| (t.to_string(), *c)).collect(),
            quota: None,
            max_per_order: None,
            closed: false,
            hidden: false,
            requires: None,
        }
    }

    fn tiers() -> BTreeSet<String> {
        ["a", "b"].iter().map(|s| s.to_string()).collect()
    }

    fn on_sale(id: i64, code: &str, prices: &[(i64, i32)]) -> OnSale {
        OnSale {
            id,
            code: code.into(),
            max_per_order: None,
            closed: false,
            hidden: false,
            requires: None,
            limited: false,
            prices: prices.iter().copied().collect(),
        }
    }

    #[test]
    fn a_list_keeps_codes_distinct_tiers_known_and_one_type_open() {
        let adult = spec("adult", &[("a", 5500)]);
        assert!(check_list(&[adult.clone(), spec("child", &[("a", 2500)])], &tiers()).is_ok());
        assert!(check_list(&[adult.clone(), adult.clone()], &tiers()).is_err());
        assert!(check_list(&[spec("Adult!", &[("a", 1)])], &tiers()).is_err());
        assert_eq!(
            check_list(&[spec("adult", &[("z", 1)])], &tiers()),
            Err(Invalid::UnknownTier("z".into()))
        );
        let closed = PriceTypeSpec {
            closed: true,
            ..adult.clone()
        };
        assert!(check_list(&[closed], &tiers()).is_err());
        let no_english = PriceTypeSpec {
            labels: BTreeMap::from([("de".to_string(), "Erwachsene".to_string())]),
            ..adult
        };
        assert!(check_list(&[no_english], &tiers()).is_err());
    }

    #[test]
    fn unnamed_seats_take_the_first_open_type_and_named_ones_their_own_price() {
        let types = [
            OnSale {
                closed: true,
                ..on_sale(1, "old", &[(10, 1)])
            },
            on_sale(2, "adult", &[(10, 5500), (11, 4000)]),
            on_sale(3, "child", &[(10, 2500)]),
        ];
        let held = [
            HeldPlace {
                place: Place::Seat(SeatId(7)),
                tier_id: 10,
                tier_price_cents: 0,
            },
            HeldPlace {
                place: Place::Seat(SeatId(8)),
                tier_id: 11,
                tier_price_cents: 0,
            },
        ];
        let chosen = BTreeMap::from([(Place::Seat(SeatId(7)), "child".to_string())]);
        let lines = price_lines(&held, &types, &chosen, None).unwrap();
        assert_eq!(
            lines,
            [
                PricedLine {
                    place: Place::Seat(SeatId(7)),
                    price_type_id: Some(3),
                    price_cents: 2500,
                    discount_cents: 0,
                },
                PricedLine {
                    place: Place::Seat(SeatId(8)),
                    price_type_id: Some(2),
                    price_cents: 4000,
                    discount_cents: 0,
                },
            ]
        );
        assert_eq!(counts_by_type(&lines), [(2, 1), (3, 1)]);
    }

    #[test]
    fn a_choice_the_rules_refuse_is_refused_naming_the_rule() {
        let types = [
            on_sale(2, "adult", &[(10, 5500), (11, 4000)]),
            OnSale {
                max_per_order: Some(1),
                ..on_sale(3, "child", &[(10, 2500)])
            },
        ];
        let held = [
            HeldPlace {
                place: Place::Seat(SeatId(7)),
                tier_id: 10,
                tier_price_cents: 0,
            },
            HeldPlace {
                place: Place::Seat(SeatId(8)),
                tier_id: 11,
                tier_price_cents: 0,
            },
            HeldPlace {
                place: Place::Seat(SeatId(9)),
                tier_id: 10,
                tier_price_cents: 0,
            },
        ];
        let child = |ids: &[i64]| -> BTreeMap<Place, String> {
            ids.iter()
                .map(|id| (Place::Seat(SeatId(*id)), "child".into()))
                .collect()
        };
        // Tier 11 has no child price.
        assert!(matches!(
            price_lines(&held, &types, &child(&[8]), None),
            Err(Invalid::PriceTypeRule(_))
        ));
        // At most one child ticket.
        assert!(matches!(
            price_lines(&held, &types, &child(&[7, 9]), None),
            Err(Invalid::PriceTypeRule(_))
        ));
        // A seat not in the hold.
        assert!(matches!(
            price_lines(&held, &types, &child(&[99]), None),
            Err(Invalid::PriceTypeRule(_))
        ));
        let unknown = BTreeMap::from([(Place::Seat(SeatId(7)), "senior".to_string())]);
        assert_eq!(
            price_lines(&held, &types, &unknown, None),
            Err(Invalid::UnknownPriceType("senior".into()))
        );
    }

    #[test]
    fn a_hidden_type_is_sold_only_with_its_code_and_never_by_default() {
        let types = [
            OnSale {
                hidden: true,
                ..on_sale(1, "members", &[(10, 3000)])
            },
            on_sale(2, "adult", &[(10, 5500)]),
        ];
        let held = [HeldPlace {
            place: Place::Seat(SeatId(7)),
            tier_id: 10,
            tier_price_cents: 0,
        }];
        let members = BTreeMap::from([(Place::Seat(SeatId(7)), "members".to_string())]);
        assert_eq!(
            price_lines(&held, &types, &members, None),
            Err(Invalid::UnknownPriceType("members".into()))
        );
        assert_eq!(
            price_lines(&held, &types, &members, Some("other")),
            Err(Invalid::UnknownPriceType("members".into()))
        );
        let unlocked = price_lines(&held, &types, &members, Some("members")).unwrap();
        assert_eq!(unlocked[0].price_cents, 3000);
        // Unnamed, the seat takes the first public type even with the code.
        let default = price_lines(&held, &types, &BTreeMap::new(), Some("members")).unwrap();
        assert_eq!(default[0].price_type_id, Some(2));
        // A list of only hidden open types has no default: refused.
        let only_hidden = PriceTypeSpec {
            hidden: true,
            ..spec("members", &[("a", 3000)])
        };
        assert!(check_list(&[only_hidden], &tiers()).is_err());
    }

    #[test]
    fn a_type_that_needs_another_is_refused_alone_and_sold_beside_it() {
        let types = [
            on_sale(2, "adult", &[(10, 5500)]),
            OnSale {
                requires: Some("adult".into()),
                ..on_sale(3, "child", &[(10, 2500)])
            },
        ];
        let held = [7, 8].map(|id| HeldPlace {
            place: Place::Seat(SeatId(id)),
            tier_id: 10,
            tier_price_cents: 0,
        });
        let both_children: BTreeMap<Place, String> = [7, 8]
            .map(|id| (Place::Seat(SeatId(id)), "child".to_string()))
            .into();
        match price_lines(&held, &types, &both_children, None) {
            Err(Invalid::PriceTypeRule(rule)) => assert!(rule.contains("adult"), "{rule}"),
            other => panic!("two children alone were not refused: {other:?}"),
        }
        let one_child = BTreeMap::from([(Place::Seat(SeatId(8)), "child".to_string())]);
        assert!(price_lines(&held, &types, &one_child, None).is_ok());
        // requires must name another listed type.
        let bad = PriceTypeSpec {
            requires: Some("adult".into()),
            ..spec("child", &[("a", 2500)])
        };
        assert!(check_list(std::slice::from_ref(&bad), &tiers()).is_err());
        assert!(check_list(&[spec("adult", &[("a", 5500)]), bad], &tiers()).is_ok());
    }

    #[test]
    fn ga_places_are_priced_like_seats() {
        let area = crate::domain::ids::AreaId(7);
        let api: BTreeMap<Place, String> = (0..2)
            .map(|n| (Place::Ga(area, n), "child".to_string()))
            .collect();
        let types = [
            on_sale(2, "adult", &[(10, 2000)]),
            OnSale {
                max_per_order: Some(2),
                ..on_sale(3, "child", &[(10, 1000)])
            },
        ];
        let held: Vec<HeldPlace> = (0..3)
            .map(|n| HeldPlace {
                place: Place::Ga(area, n),
                tier_id: 10,
                tier_price_cents: 1500,
            })
            .collect();
        let mut with_a_seat = api.clone();
        with_a_seat.insert(Place::Seat(SeatId(12)), "adult".into());
        let lines = price_lines(&held, &types, &with_a_seat, None);
        // Seat 12 is not in this hold.
        assert!(matches!(lines, Err(Invalid::PriceTypeRule(ref rule)) if rule.contains("seat 12")));
        let lines = price_lines(&held, &types, &api, None).unwrap();
        assert_eq!(
            lines.iter().map(|l| l.price_cents).collect::<Vec<_>>(),
            [1000, 1000, 2000],
            "two children and the default for the third"
        );
        assert_eq!(counts_by_type(&lines), [(2, 1), (3, 2)]);
        let three: BTreeMap<Place, String> = (0..3)
            .map(|n| (Place::Ga(area, n), "child".to_string()))
            .collect();
        assert!(matches!(
            price_lines(&held, &types, &three, None),
            Err(Invalid::PriceTypeRule(_))
        ));
        // More places named than the hold has in the area.
        let four: BTreeMap<Place, String> = (0..4)
            .map(|n| (Place::Ga(area, n), "adult".to_string()))
            .collect();
        assert!(price_lines(&held, &types, &four, None).is_err());
    }
}
