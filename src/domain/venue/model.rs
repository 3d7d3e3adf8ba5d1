//! A validated venue layout and its parts: what every parser produces and
//! everything downstream (import, events, the map) reads.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::domain::geometry::{self, Placement, Point};
use crate::domain::layout::{Flag, SeatSpec};
use crate::domain::text;

/// A layout that passed validation, every place in it resolved: sections
/// have a placement and an outline, and the venue has a stage.
#[derive(Debug, Clone, PartialEq)]
pub struct VenueLayout {
    pub name: String,
    /// The IANA time zone every time a buyer sees is shown in.
    pub time_zone: String,
    /// The stage's outline, in venue coordinates.
    pub stage: Vec<Point>,
    pub tiers: Vec<TierDef>,
    pub sections: Vec<SectionLayout>,
    pub ga_areas: Vec<GaArea>,
    /// Words on the map for finding one's way ("Bar", "Exit").
    pub labels: Vec<MapLabel>,
}

/// A label for orientation, in venue coordinates: its text at `at`, and
/// a shape drawn around it if it has one (the bar's counter, a desk).
#[derive(Debug, Clone, PartialEq)]
pub struct MapLabel {
    pub text: String,
    pub at: Point,
    pub outline: Option<Vec<Point>>,
}

impl MapLabel {
    pub fn to_json(&self) -> serde_json::Value {
        let mut label = serde_json::json!({"text": self.text, "x": self.at.x, "y": self.at.y});
        if let Some(outline) = &self.outline {
            label["outline"] = serde_json::json!(geometry::to_pairs(outline));
        }
        label
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierDef {
    pub code: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SectionLayout {
    pub name: String,
    /// Where the section's own coordinates (its seats', its outline's) sit
    /// in the venue.
    pub placement: Placement,
    /// In the section's own coordinates.
    pub outline: Vec<Point>,
    /// The designer's note of how it drew the section (see `json`).
    pub design: Option<serde_json::Value>,
    pub seats: Vec<SeatLayout>,
}

impl SectionLayout {
    /// The outline in venue coordinates.
    pub fn venue_outline(&self) -> Vec<Point> {
        self.outline
            .iter()
            .map(|p| self.placement.apply(*p))
            .collect()
    }
}

/// A seat; `x` and `y` are its centre in its section's own coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatLayout {
    pub row: String,
    pub label: String,
    pub row_index: i32,
    pub position: i32,
    pub x: f32,
    pub y: f32,
    pub rank: i32,
    pub tier: String,
    pub flags: Vec<Flag>,
    /// Why the view is restricted ("Pillar"), for a restricted-view seat.
    pub view_note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaArea {
    pub name: String,
    pub tier: String,
    pub capacity: u32,
    /// Where the area is drawn on the map, in venue coordinates.
    #[serde(default)]
    pub outline: Option<Vec<[f32; 2]>>,
}

impl VenueLayout {
    pub fn seat_count(&self) -> usize {
        self.sections.iter().map(|s| s.seats.len()).sum()
    }

    pub fn ga_capacity(&self) -> u64 {
        self.ga_areas.iter().map(|a| u64::from(a.capacity)).sum()
    }

    /// Every seat, section by section, in layout order (the order their ids
    /// will follow).
    pub fn seat_specs(&self) -> Vec<SeatSpec> {
        self.sections
            .iter()
            .enumerate()
            .flat_map(|(section_index, section)| {
                section.seats.iter().map(move |seat| {
                    let at = section.placement.apply(Point::new(seat.x, seat.y));
                    SeatSpec {
                        section_index,
                        tier: seat.tier.clone(),
                        row_label: seat.row.clone(),
                        seat_label: seat.label.clone(),
                        row_index: seat.row_index,
                        position: seat.position,
                        x: at.x,
                        y: at.y,
                        rank: seat.rank,
                        flags: seat.flags.clone(),
                        view_note: seat.view_note.clone(),
                    }
                })
            })
            .collect()
    }

    /// The canonical JSON form: the file format with every coordinate and
    /// rank spelled out. `from_json` reads it back to an equal layout, so a
    /// stored venue can be exported, and an event built from it, without
    /// the file it came from.
    pub fn to_json(&self) -> serde_json::Value {
        let sections: Vec<serde_json::Value> = self
            .sections
            .iter()
            .map(|section| {
                let mut rows: BTreeMap<i32, (String, Vec<&SeatLayout>)> = BTreeMap::new();
                for seat in &section.seats {
                    rows.entry(seat.row_index)
                        .or_insert_with(|| (seat.row.clone(), Vec::new()))
                        .1
                        .push(seat);
                }
                let rows: Vec<serde_json::Value> = rows
                    .into_values()
                    .map(|(label, mut seats)| {
                        seats.sort_by_key(|seat| seat.position);
                        let seats: Vec<serde_json::Value> = seats
                            .iter()
                            .map(|seat| {
                                let mut json = serde_json::json!({
                                    "label": seat.label,
                                    "tier": seat.tier,
                                    "x": seat.x,
                                    "y": seat.y,
                                    "rank": seat.rank,
                                    "flags": seat.flags.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
                                });
                                if let Some(note) = &seat.view_note {
                                    json["view_note"] = note.clone().into();
                                }
                                json
                            })
                            .collect();
                        serde_json::json!({ "label": label, "seats": seats })
                    })
                    .collect();
                let mut section_json = serde_json::json!({
                    "name": section.name,
                    "position": {"x": section.placement.origin.x, "y": section.placement.origin.y},
                    "rotation": section.placement.rotation,
                    "outline": geometry::to_pairs(&section.outline),
                    "rows": rows,
                });
                if let Some(design) = &section.design {
                    section_json["design"] = design.clone();
                }
                section_json
            })
            .collect();
        let ga_areas: Vec<serde_json::Value> = self
            .ga_areas
            .iter()
            .map(|a| {
                let mut area =
                    serde_json::json!({"name": a.name, "tier": a.tier, "capacity": a.capacity});
                if let Some(outline) = &a.outline {
                    area["outline"] = serde_json::json!(outline);
                }
                area
            })
            .collect();
        let mut layout = serde_json::json!({
            "name": self.name,
            "time_zone": self.time_zone,

            "tiers": self.tiers.iter().map(|t| serde_json::json!({"code": t.code, "name": t.name})).collect::<Vec<_>>(),
            "sections": sections,
            "ga_areas": ga_areas,
        });
        // A venue with nothing drawn (standing areas without outlines) has
        // no stage, and an outline of fewer than 3 points would not read back.
        if self.stage.len() >= 3 {
            layout["stage"] = serde_json::json!({"outline": geometry::to_pairs(&self.stage)});
        }
        if !self.labels.is_empty() {
            layout["labels"] = self.labels_json();
        }
        layout
    }

    /// The labels as an event stores them.
    pub fn labels_json(&self) -> serde_json::Value {
        serde_json::Value::Array(self.labels.iter().map(MapLabel::to_json).collect())
    }
}

/// One problem in a layout file, and where it is: `at` as the file says
/// it (a JSON path, a CSV line), `place` as a person says it (section,
/// row, seat), so the designer can point at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError {
    pub at: String,
    pub problem: String,
    pub kind: ProblemKind,
    pub place: Place,
}

impl LayoutError {
    /// A problem, its words and where cut to a bounded length: whatever a
    /// file holds, a problem quoting it stays small.
    pub fn new(at: impl Into<String>, problem: impl Into<String>) -> LayoutError {
        LayoutError {
            at: text::cut(at.into(), MAX_AT_CHARS),
            problem: text::cut(problem.into(), MAX_PROBLEM_CHARS),
            kind: ProblemKind::Invalid,
            place: Place::default(),
        }
    }

    pub fn of_kind(mut self, kind: ProblemKind) -> LayoutError {
        self.kind = kind;
        self
    }

    /// Where the problem is, by name; each name quoted cut short.
    pub fn at_place(mut self, place: Place) -> LayoutError {
        let short = |name: Option<String>| name.map(|name| text::shortened(&name));
        self.place = Place {
            section: short(place.section),
            row: short(place.row),
            seat: short(place.seat),
        };
        self
    }
}

/// What sort of problem, for a program to act on; the words are for a
/// person. A closed set: the OpenAPI document lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// Not JSON (or not CSV) of the layout's shape.
    Syntax,
    /// Two seats closer than a seat's width.
    Overlap,
    /// A section, row, seat, tier or area name given twice.
    DuplicateLabel,
    /// A seat or area whose tier is not one of the layout's tiers.
    Unpainted,
    /// A companion seat with no wheelchair space beside it.
    CompanionAlone,
    /// Any other value out of its rules.
    Invalid,
}

/// Where a problem is, by name; each part absent when it does not apply.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct Place {
    /// The section's (or standing area's) name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<String>,
}

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.problem)
    }
}

pub(super) const MAX_SEATS: usize = 100_000;
/// A file this broken is reported in part: the list is for a person, and
/// an answer listing it stays small whatever the file holds.
pub(super) const MAX_REPORTED_PROBLEMS: usize = 200;
/// The longest a problem's words may be (a name it quotes is cut short
/// first; this bounds what a parser's own message may quote).
const MAX_PROBLEM_CHARS: usize = 300;
/// The longest a problem's place in the file may be (a JSON path).
const MAX_AT_CHARS: usize = 120;

/// The problems found so far: the first [`MAX_REPORTED_PROBLEMS`] kept,
/// the rest only counted, so a file of a million mistakes costs no more
/// to report than one of two hundred.
#[derive(Debug, Default)]
pub(super) struct Problems {
    listed: Vec<LayoutError>,
    unlisted: usize,
}

impl Problems {
    pub(super) fn push(&mut self, problem: LayoutError) {
        if self.listed.len() < MAX_REPORTED_PROBLEMS {
            self.listed.push(problem);
        } else {
            self.unlisted += 1;
        }
    }

    /// Puts a problem first (the venue's own name, say).
    pub(super) fn push_first(&mut self, problem: LayoutError) {
        self.listed.insert(0, problem);
        if self.listed.len() > MAX_REPORTED_PROBLEMS {
            self.listed.pop();
            self.unlisted += 1;
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.listed.is_empty()
    }

    /// Whether more problems would only be counted.
    pub(super) fn is_full(&self) -> bool {
        self.listed.len() >= MAX_REPORTED_PROBLEMS
    }

    /// The problems listed, and a last one saying how many more there were.
    pub(super) fn into_vec(mut self) -> Vec<LayoutError> {
        if self.unlisted > 0 {
            self.listed.push(LayoutError::new(
                "",
                format!(
                    "and {} more problems, not listed (the first {MAX_REPORTED_PROBLEMS} are)",
                    self.unlisted
                ),
            ));
        }
        self.listed
    }
}
/// All areas together: the venue stores the sum as an integer.
pub(super) const MAX_GA_PLACES: u64 = 1_000_000;
