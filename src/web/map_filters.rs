//! The map's filters: which prices, and which seat attributes, are shown
//! in full (the rest dimmed, still there to pick).

use crate::db::events::Tier;
use crate::web::seat_view::{tier_class, tiers_currency};

/// The price filter: the range of prices shown in full; seats (and
/// sections) outside it are dimmed, still there to pick.
pub struct PriceFilter {
    pub choices: Vec<PriceChoice>,
    pub min: i32,
    pub max: i32,
    /// Classes for the map: one per tier outside the range.
    pub dim_classes: String,
}

pub struct PriceChoice {
    pub cents: i32,
    pub label: String,
    pub is_min: bool,
    pub is_max: bool,
}

impl PriceFilter {
    /// `min`/`max` as asked (in minor units); missing or out of range
    /// means the cheapest / dearest price.
    pub fn new(tiers: &[Tier], min: Option<i32>, max: Option<i32>) -> PriceFilter {
        let mut prices: Vec<i32> = tiers.iter().map(|t| t.price_cents).collect();
        prices.sort_unstable();
        prices.dedup();
        let lowest = prices.first().copied().unwrap_or(0);
        let highest = prices.last().copied().unwrap_or(0);
        let min = min.unwrap_or(lowest).clamp(lowest, highest);
        let max = max.unwrap_or(highest).clamp(min, highest.max(min));
        let currency = tiers_currency(tiers);
        let dim_classes = tiers
            .iter()
            .filter(|t| t.price_cents < min || t.price_cents > max)
            .map(|t| format!("dim-{}", tier_class(tiers, &t.code)))
            .collect::<Vec<_>>()
            .join(" ");
        PriceFilter {
            choices: prices
                .iter()
                .map(|&cents| PriceChoice {
                    cents,
                    label: currency.format_in(i64::from(cents), crate::i18n::current()),
                    is_min: cents == min,
                    is_max: cents == max,
                })
                .collect(),
            min,
            max,
            dim_classes,
        }
    }

    pub fn admits(&self, cents: i32) -> bool {
        (self.min..=self.max).contains(&cents)
    }

    /// Worth offering: there is more than one price.
    pub fn useful(&self) -> bool {
        self.choices.len() > 1
    }
}

/// Seats with one attribute (step-free access, say) shown in full, the
/// rest dimmed: offered for the attributes the seats shown have.
pub struct FeatureFilter {
    pub choices: Vec<FeatureChoice>,
    /// The map's class for the choice, after a space (" want-step-free"),
    /// or empty.
    pub class: String,
}

pub struct FeatureChoice {
    /// The query's value: an attribute, or "clear_view".
    pub value: &'static str,
    pub label: String,
    pub selected: bool,
}

/// What "no restricted view" is asked as.
const CLEAR_VIEW: &str = "clear_view";

impl FeatureFilter {
    pub fn new(seats: &[crate::domain::seat::Seat], asked: Option<&str>) -> FeatureFilter {
        use crate::domain::layout::Flag;
        let present: std::collections::HashSet<Flag> = seats
            .iter()
            .flat_map(|seat| seat.accessibility.iter())
            .filter_map(|name| Flag::from_db(name))
            .collect();
        let mut choices: Vec<FeatureChoice> = Flag::ALL
            .into_iter()
            // Companion seats go with a wheelchair space; a restricted
            // view is something to avoid, offered as its opposite.
            .filter(|flag| {
                present.contains(flag) && !matches!(flag, Flag::Companion | Flag::RestrictedView)
            })
            .map(|flag| FeatureChoice {
                value: flag.as_str(),
                label: crate::web::seat_view::flag_label(flag),
                selected: asked == Some(flag.as_str()),
            })
            .collect();
        if present.contains(&Flag::RestrictedView) {
            choices.push(FeatureChoice {
                value: CLEAR_VIEW,
                label: crate::i18n::t("flag-clear-view"),
                selected: asked == Some(CLEAR_VIEW),
            });
        }
        let class = choices
            .iter()
            .find(|c| c.selected)
            .map(|c| format!(" want-{}", c.value.replace('_', "-")))
            .unwrap_or_default();
        FeatureFilter { choices, class }
    }

    /// Worth offering: some seat shown has an attribute to look for.
    pub fn useful(&self) -> bool {
        !self.choices.is_empty()
    }
}
