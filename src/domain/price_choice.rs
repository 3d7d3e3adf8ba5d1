//! What a buyer chose besides their places: a price type per seat and per
//! general-admission place (the rest take the default), and a promo code;
//! read from the API's body and from the hold panel's form alike.

use std::collections::BTreeMap;

use super::ids::{AreaId, SeatId};
use super::refusal::Invalid;

/// The most places a purchase may name a type for (a hold has fewer).
pub const MAX_CHOICES: usize = 100;
/// A place a purchase sells as a type: a seat, or the nth (from 0) of
/// the places the hold has in a general-admission area. GA places of one
/// area are alike, so which is which only says how many of each type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    Seat(SeatId),
    Ga(AreaId, u32),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Seat(seat) => write!(f, "seat {seat}"),
            Place::Ga(area, n) => write!(f, "place {} in area {area}", n + 1),
        }
    }
}

/// What a buyer chose at checkout besides their places: each place's
/// price type (those not named take the default), and a promo code.
#[derive(Debug, Clone, Default)]
pub struct Choices {
    pub types: BTreeMap<Place, String>,
    pub promo_code: Option<String>,
}

impl Choices {
    /// A promo code as typed: blank is none; over 100 characters can't be
    /// one (refused as unknown without a lookup).
    pub fn with_code(mut self, code: Option<&str>) -> Choices {
        self.promo_code = code
            .map(str::trim)
            .filter(|code| !code.is_empty())
            .map(|code| code.chars().take(100).collect());
        self
    }
}

/// A purchase's choices as sent, read: `seats` by seat id (as text) to
/// type code, and `ga` by area id (as text) to how many places of each
/// type (`{"7": {"child": 2}}`: two of the hold's places in area 7 are
/// Child tickets, the rest the default). At most [`MAX_CHOICES`] places
/// named in all.
pub fn choices(
    seats: BTreeMap<String, String>,
    ga: BTreeMap<String, BTreeMap<String, i32>>,
) -> Result<BTreeMap<Place, String>, Invalid> {
    let too_many = || Invalid::PriceTypeRule(format!("at most {MAX_CHOICES} places named"));
    if seats.len() > MAX_CHOICES {
        return Err(too_many());
    }
    let twice = |what: String| Invalid::PriceTypeRule(format!("{what} is named twice"));
    let mut chosen: BTreeMap<Place, String> = BTreeMap::new();
    for (seat, code) in seats {
        let id = seat
            .trim()
            .parse::<i64>()
            .map_err(|_| Invalid::PriceTypeRule(format!("{seat:?} is not a seat id")))?;
        // "12" and "012" are one seat: which type was meant is unclear.
        if chosen.insert(Place::Seat(SeatId(id)), code).is_some() {
            return Err(twice(format!("seat {id}")));
        }
    }
    for (area, counts) in ga {
        let area_id = area
            .trim()
            .parse::<i64>()
            .map_err(|_| Invalid::PriceTypeRule(format!("{area:?} is not an area id")))?;
        if chosen.contains_key(&Place::Ga(AreaId(area_id), 0)) {
            return Err(twice(format!("area {area_id}")));
        }
        let mut next = 0u32;
        for (code, count) in counts {
            if count < 0 {
                return Err(Invalid::PriceTypeRule(format!(
                    "area {area_id}: a count of {code} places is 0 or more"
                )));
            }
            for _ in 0..count {
                if chosen.len() >= MAX_CHOICES {
                    return Err(too_many());
                }
                chosen.insert(Place::Ga(AreaId(area_id), next), code.clone());
                next += 1;
            }
        }
    }
    Ok(chosen)
}

/// A checkout form's type choices: its `type_<seat id>` fields, and its
/// `type_ga_<area id>_<n>` fields, one per GA place (others are the form's
/// own), read as [`choices`] reads the API's.
pub fn form_choices<'a>(
    fields: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Result<BTreeMap<Place, String>, Invalid> {
    let mut seats = BTreeMap::new();
    let mut ga: BTreeMap<String, BTreeMap<String, i32>> = BTreeMap::new();
    for (name, code) in fields {
        if let Some(place) = name.strip_prefix("type_ga_") {
            let area = place.split_once('_').map_or(place, |(area, _)| area);
            *ga.entry(area.to_string())
                .or_default()
                .entry(code.clone())
                .or_default() += 1;
        } else if let Some(seat) = name.strip_prefix("type_") {
            seats.insert(seat.to_string(), code.clone());
        }
    }
    choices(seats, ga)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ga_places_are_named_by_counts_per_area_in_the_api_and_the_form() {
        let area = AreaId(7);
        // The API's counts, and the form's one field per place, say the same.
        let api = choices(
            BTreeMap::from([("12".to_string(), "adult".to_string())]),
            BTreeMap::from([("7".to_string(), BTreeMap::from([("child".to_string(), 2)]))]),
        )
        .unwrap();
        let fields: Vec<(String, String)> = [
            ("type_12", "adult"),
            ("type_ga_7_0", "child"),
            ("type_ga_7_2", "child"),
            ("name", "Ada"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into();
        let form = form_choices(fields.iter().map(|(k, v)| (k, v))).unwrap();
        assert_eq!(api, form);
        assert_eq!(
            api.keys().copied().collect::<Vec<_>>(),
            [
                Place::Seat(SeatId(12)),
                Place::Ga(area, 0),
                Place::Ga(area, 1)
            ]
        );
        assert!(
            choices(
                BTreeMap::new(),
                BTreeMap::from([("x".into(), BTreeMap::new())])
            )
            .is_err()
        );
        let negative =
            BTreeMap::from([("7".to_string(), BTreeMap::from([("child".to_string(), -1)]))]);
        assert!(choices(BTreeMap::new(), negative).is_err());
        let one_seat_twice = BTreeMap::from([
            ("12".to_string(), "adult".to_string()),
            ("012".to_string(), "child".to_string()),
        ]);
        assert!(choices(one_seat_twice, BTreeMap::new()).is_err());
        let one_area_twice = BTreeMap::from([
            ("7".to_string(), BTreeMap::from([("child".to_string(), 1)])),
            ("07".to_string(), BTreeMap::from([("adult".to_string(), 1)])),
        ]);
        assert!(choices(BTreeMap::new(), one_area_twice).is_err());
    }
}
