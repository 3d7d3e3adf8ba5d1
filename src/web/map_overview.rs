//! The overview a big venue's map opens on: each section's outline,
//! banded by tier and linking to its seats, with its lowest price.

use crate::db::events::Tier;
use crate::db::map::MapShapes;
use crate::domain::geometry::{self, Bounds, Point};
use crate::domain::ids::SectionId;
use crate::domain::layout::SEAT_PITCH;
use crate::domain::money::group_thousands;
use crate::web::map::{LabelView, ShapeView, svg_points};
use crate::web::map_filters::PriceFilter;
use crate::web::seat_view::{tier_class, tiers_currency};

/// A section on the overview: a link to its seats.
pub struct OverviewSection {
    pub id: SectionId,
    pub href: String,
    pub shape: ShapeView,
    /// "from €45", or "Sold out".
    pub caption: String,
    /// Its full name for assistive technology and the tooltip.
    pub accessible_name: String,
    /// The fill of its cheapest free tier.
    pub fill_class: String,
    pub sold_out: bool,
    pub current: bool,
    /// The viewer holds seats here.
    pub mine: bool,
    /// The fills of the tiers with a free seat here, for the price filter.
    pub tier_classes: String,
    /// A section with free seats in several tiers is filled with a band
    /// of each, dearest nearest the stage.
    pub bands: Option<Bands>,
    /// No free seat here is in the price filter's range.
    pub dimmed: bool,
}

/// A section with several prices free, drawn as a band of each tier's
/// fill (the legend's colour and pattern), clipped to its outline.
pub struct Bands {
    pub clip_id: String,
    pub bands: Vec<Band>,
}

pub struct Band {
    pub points: String,
    pub fill: String,
}

/// Equal bands of `classes` (front first) across `outline`, one after the
/// other along the line from the stage's centre through the section's
/// (straight down the page without a stage).
fn bands(id: SectionId, outline: &[Point], stage: &[Point], classes: &[String]) -> Bands {
    let centre = geometry::centroid(outline);
    let (dx, dy) = match stage.len() >= 3 {
        true => {
            let from = geometry::centroid(stage);
            (centre.x - from.x, centre.y - from.y)
        }
        false => (0.0, 1.0),
    };
    let length = (dx * dx + dy * dy).sqrt();
    let (dx, dy) = match length < f32::EPSILON {
        true => (0.0, 1.0),
        false => (dx / length, dy / length),
    };
    let along = |p: &Point| (p.x - centre.x) * dx + (p.y - centre.y) * dy;
    let across = |p: &Point| ((p.x - centre.x) * -dy + (p.y - centre.y) * dx).abs();
    let near = outline.iter().map(along).fold(f32::INFINITY, f32::min) - 1.0;
    let far = outline.iter().map(along).fold(f32::NEG_INFINITY, f32::max) + 1.0;
    let half_width = outline.iter().map(across).fold(0.0, f32::max) + 1.0;
    let at = |a: f32, b: f32| Point::new(centre.x + dx * a - dy * b, centre.y + dy * a + dx * b);
    let step = (far - near) / classes.len() as f32;
    Bands {
        clip_id: format!("clip-section-{id}"),
        bands: classes
            .iter()
            .enumerate()
            .map(|(i, class)| {
                let (a0, a1) = (near + i as f32 * step, near + (i + 1) as f32 * step);
                Band {
                    points: svg_points(&[
                        at(a0, -half_width),
                        at(a0, half_width),
                        at(a1, half_width),
                        at(a1, -half_width),
                    ]),
                    fill: format!("fill-{class}"),
                }
            })
            .collect(),
    }
}

pub struct Overview {
    pub view_box: String,
    /// Text size in venue units, so labels scale with the drawing.
    pub font: f32,
    pub stage: Option<ShapeView>,
    pub areas: Vec<ShapeView>,
    pub labels: Vec<LabelView>,
    pub sections: Vec<OverviewSection>,
}

/// The overview of a big venue's sections, each linking to `page` (the
/// buyer's event page, or a box-office page) showing that section.
pub fn overview(
    page: &str,
    shapes: &MapShapes,
    tiers: &[Tier],
    current: Option<SectionId>,
    filter: &PriceFilter,
) -> Overview {
    let bounds = shapes.bounds().unwrap_or(Bounds {
        min: Point::default(),
        max: Point::new(1.0, 1.0),
    });
    let margin = SEAT_PITCH;
    let currency = tiers_currency(tiers);
    let sections = shapes
        .sections
        .iter()
        .filter(|s| s.outline.len() >= 3)
        .map(|s| {
            let sold_out = s.seats_available == 0;
            let caption = match s.from_cents {
                Some(cents) if !sold_out => format!(
                    "from {}",
                    currency.format_in(i64::from(cents), crate::i18n::current())
                ),
                _ => "Sold out".to_string(),
            };
            let left = format!(
                "{} of {} seats left",
                group_thousands(s.seats_available.max(0) as u64),
                group_thousands(s.seats_total.max(0) as u64)
            );
            OverviewSection {
                id: s.id,
                // No fragment: the page opens at its top, with its heading,
                // the way back to all sections and the zoom buttons in view.
                href: format!("{page}?section={}", s.id),
                shape: ShapeView::new(&s.name, &s.outline),
                // Starts with the words drawn on it ("104", "from $110"), so
                // speech users can say what they see.
                accessible_name: match (sold_out, s.mine > 0) {
                    (true, false) => format!("Section {} {caption}", s.name),
                    (false, false) => format!("Section {} {caption}, {left}", s.name),
                    (true, true) => format!("Section {} {caption}, your seats are here", s.name),
                    (false, true) => {
                        format!("Section {} {caption}, {left}, your seats are here", s.name)
                    }
                },
                mine: s.mine > 0,
                caption,
                fill_class: match &s.from_tier {
                    Some(code) if !sold_out => tier_class(tiers, code),
                    _ => "overview__section--sold-out".to_string(),
                },
                sold_out,
                current: current == Some(s.id),
                bands: (!sold_out && s.free_tiers.len() >= 2).then(|| {
                    let mut free: Vec<&Tier> = tiers
                        .iter()
                        .filter(|t| s.free_tiers.contains(&t.code))
                        .collect();
                    free.sort_by_key(|t| std::cmp::Reverse(t.price_cents));
                    let classes: Vec<String> =
                        free.iter().map(|t| tier_class(tiers, &t.code)).collect();
                    bands(s.id, &s.outline, &shapes.stage, &classes)
                }),
                tier_classes: s
                    .free_tiers
                    .iter()
                    .map(|code| tier_class(tiers, code))
                    .collect::<Vec<_>>()
                    .join(" "),
                dimmed: !s.free_tiers.is_empty()
                    && s.free_tiers.iter().all(|code| {
                        tiers
                            .iter()
                            .find(|t| &t.code == code)
                            .is_none_or(|t| !filter.admits(t.price_cents))
                    }),
            }
        })
        .collect();
    Overview {
        view_box: format!(
            "{:.1} {:.1} {:.1} {:.1}",
            bounds.min.x - margin,
            bounds.min.y - margin,
            bounds.width() + 2.0 * margin,
            bounds.height() + 2.0 * margin
        ),
        font: (bounds.width().max(bounds.height()) / 70.0).max(12.0),
        stage: (shapes.stage.len() >= 3).then(|| ShapeView::new("Stage", &shapes.stage)),
        areas: shapes
            .areas
            .iter()
            .map(|a| ShapeView::new(&a.name, &a.outline))
            .collect(),
        labels: shapes.labels.iter().map(LabelView::new).collect(),
        sections,
    }
}
