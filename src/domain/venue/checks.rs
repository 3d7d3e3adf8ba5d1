//! The rules every layout passes whatever its format: tiers, flags,
//! outlines, placement, and the last pass that resolves a draft into a
//! [`VenueLayout`].

use std::collections::HashSet;

use super::model::{
    GaArea, LayoutError, MAX_GA_PLACES, MAX_SEATS, MapLabel, Place, ProblemKind, Problems,
    SeatLayout, SectionLayout, TierDef, VenueLayout,
};
use crate::domain::geometry::{self, Bounds, Placement, Point};
use crate::domain::layout::{Flag, SEAT_PITCH};
use crate::domain::text::{self, MAX_CODE_CHARS, MAX_NAME_CHARS};

pub(super) fn err(at: &str, problem: impl Into<String>) -> LayoutError {
    LayoutError::new(at, problem)
}

/// Front rows first, then closeness to the row's centre; earlier sections
/// first (the same rule as grid layouts).
pub(super) fn default_rank(section: usize, row: usize, position: usize, row_len: usize) -> i32 {
    let off_centre = (2 * position as i64 - (row_len as i64 - 1)).unsigned_abs() as i32;
    section as i32 * 1_000_000 + row as i32 * 1_000 + off_centre
}

pub(super) fn check_tiers<'a>(
    tiers: &'a [TierDef],
    errors: &mut Problems,
    at: impl Fn(usize) -> String,
) -> HashSet<&'a str> {
    let mut codes = HashSet::new();
    if tiers.is_empty() {
        errors.push(err("tiers", "name at least one price tier"));
    }
    for (i, tier) in tiers.iter().enumerate() {
        if tier.code.trim().is_empty() || tier.name.trim().is_empty() {
            errors.push(err(&at(i), "a tier needs a code and a name"));
        } else if let Some(problem) = text::problem("the tier code", &tier.code, MAX_CODE_CHARS)
            .or_else(|| text::problem("the tier name", &tier.name, MAX_NAME_CHARS))
        {
            errors.push(err(&at(i), problem));
        } else if !codes.insert(tier.code.as_str()) {
            errors.push(
                err(&at(i), format!("duplicate tier {:?}", tier.code))
                    .of_kind(ProblemKind::DuplicateLabel),
            );
        }
    }
    codes
}

/// A seat's flags, each once whatever the file repeats, in the order
/// first given.
pub(super) fn check_flags(names: &[String], at: &str, errors: &mut Problems) -> Vec<Flag> {
    let mut flags = Vec::new();
    for name in names {
        match Flag::from_db(name) {
            Some(flag) if !flags.contains(&flag) => flags.push(flag),
            Some(_) => {}
            None => errors.push(err(
                at,
                format!(
                    "unknown flag {}: use {}",
                    text::quoted(name),
                    Flag::ALL.map(Flag::as_str).join(", ")
                ),
            )),
        }
    }
    flags
}

/// A restricted-view seat's reason: plain text of up to
/// `MAX_VIEW_NOTE_CHARS`, and only on a seat marked `restricted_view`.
pub(super) fn check_view_note(
    note: Option<&str>,
    flags: &[Flag],
    at: &str,
    errors: &mut Problems,
) -> Option<String> {
    use crate::domain::layout::MAX_VIEW_NOTE_CHARS;
    let note = note.map(str::trim).filter(|note| !note.is_empty())?;
    if !crate::domain::text::is_plain(note, MAX_VIEW_NOTE_CHARS) {
        errors.push(err(
            at,
            format!("view_note: plain text of 1 to {MAX_VIEW_NOTE_CHARS} characters"),
        ));
        return None;
    }
    if !flags.contains(&Flag::RestrictedView) {
        errors.push(err(at, "a view_note is for a seat marked restricted_view"));
        return None;
    }
    Some(note.to_string())
}

/// A section as read, before it is placed.
pub(super) struct DraftSection {
    pub(super) name: String,
    pub(super) position: Option<Point>,
    pub(super) rotation: f32,
    pub(super) outline: Option<Vec<Point>>,
    pub(super) design: Option<serde_json::Value>,
    pub(super) seats: Vec<SeatLayout>,
    /// Which seats' ranks the file gave (the rest are computed).
    pub(super) ranked: Vec<bool>,
}

/// The venue-wide parts of a layout, as read.
pub(super) struct Venue {
    pub(super) name: String,
    pub(super) time_zone: String,
    pub(super) stage: Option<Vec<Point>>,
    pub(super) tiers: Vec<TierDef>,
    pub(super) ga_areas: Vec<GaArea>,
    pub(super) labels: Vec<MapLabel>,
}

pub const DEFAULT_TIME_ZONE: &str = "UTC";

/// Space between sections stacked one below the other, room for a name.
pub(super) const STACK_GAP: f32 = 3.0 * SEAT_PITCH;
/// How far a drawn outline clears its seats' centres.
pub(super) const OUTLINE_MARGIN: f32 = SEAT_PITCH / 2.0 + 4.0;

pub(super) fn local_coordinate_ok(c: f64) -> bool {
    c.is_finite() && (-100_000.0..=100_000.0).contains(&c)
}

pub(super) fn check_outline(
    pairs: &[[f64; 2]],
    at: &str,
    lowest: f64,
    errors: &mut Problems,
) -> Vec<Point> {
    if pairs.len() < 3 || pairs.len() > 1_000 {
        errors.push(err(at, "an outline needs 3 to 1000 points"));
    }
    if let Some([x, y]) = pairs.iter().find(|[x, y]| {
        !(x.is_finite()
            && y.is_finite()
            && (lowest..=100_000.0).contains(x)
            && (lowest..=100_000.0).contains(y))
    }) {
        errors.push(err(
            at,
            format!("bad point ({x}, {y}): use {lowest} to 100000"),
        ));
    }
    pairs
        .iter()
        .map(|[x, y]| Point::new(*x as f32, *y as f32))
        .collect()
}

/// Places what the file left unplaced, then checks the whole.
///
/// Sections without a position are stacked below everything placed, each
/// centred on the widest; sections without an outline get one around their
/// seats; a venue without a stage gets a bar in front of its seats. If
/// anything would sit left of or above the origin, everything moves right
/// or down so that nothing does. Seats without a rank in a venue whose
/// sections are placed rank by their distance to the stage; otherwise by
/// section, row and closeness to the row's centre.
pub(super) fn finish(
    venue: Venue,
    drafts: Vec<DraftSection>,
    mut errors: Problems,
) -> Result<VenueLayout, Vec<LayoutError>> {
    let Venue {
        name,
        time_zone,
        stage,
        tiers,
        mut ga_areas,
        mut labels,
    } = venue;
    if name.trim().is_empty() {
        errors.push_first(err("name", "the venue needs a name"));
    } else if let Some(problem) = text::problem("the venue name", &name, MAX_NAME_CHARS) {
        errors.push_first(err("name", problem));
    }
    let placed_venue = drafts.iter().any(|d| d.position.is_some());
    let mut sections: Vec<SectionLayout> = Vec::with_capacity(drafts.len());
    let mut ranked: Vec<Vec<bool>> = Vec::with_capacity(drafts.len());
    let unplaced: Vec<bool> = drafts.iter().map(|d| d.position.is_none()).collect();
    for draft in drafts {
        let centres: Vec<Point> = draft.seats.iter().map(|s| Point::new(s.x, s.y)).collect();
        let outline = draft
            .outline
            .unwrap_or_else(|| geometry::outline_around(&centres, OUTLINE_MARGIN));
        sections.push(SectionLayout {
            name: draft.name,
            placement: Placement {
                origin: draft.position.unwrap_or_default(),
                rotation: draft.rotation,
            },
            outline,
            design: draft.design,
            seats: draft.seats,
        });
        ranked.push(draft.ranked);
    }
    // Stack the unplaced sections below the placed ones.
    let turned = |section: &SectionLayout| {
        let at_origin = Placement {
            origin: Point::default(),
            rotation: section.placement.rotation,
        };
        Bounds::of(section.outline.iter().map(|p| at_origin.apply(*p)))
    };
    let is_unplaced = |i: usize| unplaced[i];
    let placed_bounds = sections
        .iter()
        .enumerate()
        .filter(|(i, _)| !is_unplaced(*i))
        .filter_map(|(_, s)| Bounds::of(s.venue_outline()))
        .reduce(Bounds::union);
    let widest = (0..sections.len())
        .filter(|i| is_unplaced(*i))
        .filter_map(|i| turned(&sections[i]))
        .map(|b| b.width())
        .fold(0.0f32, f32::max);
    let mut next_top = placed_bounds.map_or(0.0, |b| b.max.y + STACK_GAP);
    for (i, section) in sections.iter_mut().enumerate() {
        if !is_unplaced(i) {
            continue;
        }
        let Some(bounds) = turned(section) else {
            continue;
        };
        section.placement.origin = Point::new(
            (widest - bounds.width()) / 2.0 - bounds.min.x,
            next_top - bounds.min.y,
        );
        next_top += bounds.height() + STACK_GAP;
    }
    let content = sections
        .iter()
        .filter_map(|s| Bounds::of(s.venue_outline()))
        .chain(ga_areas.iter().filter_map(|a| {
            a.outline
                .as_ref()
                .and_then(|o| Bounds::of(geometry::from_pairs(o)))
        }))
        .chain(labels.iter().filter_map(|l| {
            Bounds::of(std::iter::once(l.at).chain(l.outline.iter().flatten().copied()))
        }))
        .reduce(Bounds::union);
    let mut stage = stage.unwrap_or_else(|| match content {
        Some(b) => {
            let inset = b.width() * 0.2;
            Bounds {
                min: Point::new(b.min.x + inset, b.min.y - 4.0 * SEAT_PITCH),
                max: Point::new(b.max.x - inset, b.min.y - 2.0 * SEAT_PITCH),
            }
            .corners()
        }
        None => Vec::new(),
    });
    // Nothing left of or above the origin.
    let everything = content
        .into_iter()
        .chain(Bounds::of(stage.iter().copied()))
        .chain(sections.iter().filter_map(|s| {
            Bounds::of(
                s.seats
                    .iter()
                    .map(|seat| s.placement.apply(Point::new(seat.x, seat.y))),
            )
        }))
        .reduce(Bounds::union);
    if let Some(b) = everything {
        let shift = Point::new((-b.min.x).max(0.0), (-b.min.y).max(0.0));
        if shift != Point::default() {
            for section in &mut sections {
                section.placement.origin.x += shift.x;
                section.placement.origin.y += shift.y;
            }
            for p in &mut stage {
                p.x += shift.x;
                p.y += shift.y;
            }
            for area in &mut ga_areas {
                for pair in area.outline.iter_mut().flatten() {
                    pair[0] += shift.x;
                    pair[1] += shift.y;
                }
            }
            for label in &mut labels {
                for p in std::iter::once(&mut label.at).chain(label.outline.iter_mut().flatten()) {
                    p.x += shift.x;
                    p.y += shift.y;
                }
            }
        }
    }
    if placed_venue && !stage.is_empty() {
        let focus = geometry::centroid(&stage);
        for (section, ranked) in sections.iter_mut().zip(&ranked) {
            let placement = section.placement;
            for (seat, given) in section.seats.iter_mut().zip(ranked) {
                if !given {
                    let at = placement.apply(Point::new(seat.x, seat.y));
                    let distance = ((at.x - focus.x).powi(2) + (at.y - focus.y).powi(2)).sqrt();
                    seat.rank = (distance * 10.0).round() as i32;
                }
            }
        }
    }
    let layout = VenueLayout {
        name,
        time_zone,
        stage,
        tiers,
        sections,
        ga_areas,
        labels,
    };
    if layout.seat_count() == 0 && layout.ga_areas.is_empty() {
        errors.push(err(
            "sections",
            "the venue has no seats and no general-admission areas",
        ));
    }
    if layout.seat_count() > MAX_SEATS {
        errors.push(err(
            "sections",
            format!("{} seats is more than {MAX_SEATS}", layout.seat_count()),
        ));
    }
    if layout.ga_capacity() > MAX_GA_PLACES {
        errors.push(err(
            "ga_areas",
            format!(
                "{} general-admission places in all is more than {MAX_GA_PLACES}",
                layout.ga_capacity()
            ),
        ));
    }
    if errors.is_empty() {
        Ok(layout)
    } else {
        Err(errors.into_vec())
    }
}

/// The checks a layout about to be stored passes besides its format's:
/// no two seats in one spot, no companion seat alone, designer's notes of
/// their own shape. Stored layouts are
/// read without them, so a venue stored before they existed still opens
/// (in the designer, to be fixed).
pub(super) fn placement_problems(layout: &VenueLayout) -> Vec<LayoutError> {
    let mut errors = Problems::default();
    check_seats_apart(layout, &mut errors);
    check_companions(layout, &mut errors);
    for (s, section) in layout.sections.iter().enumerate() {
        if let Some(problem) = section
            .design
            .as_ref()
            .and_then(|design| super::design::problem(design, &format!("sections[{s}].design")))
        {
            errors.push(problem.at_place(Place {
                section: Some(section.name.clone()),
                ..Place::default()
            }));
        }
    }
    errors.into_vec()
}

/// Seat centres closer than this overlap (seats are drawn a little under a
/// pitch wide).
const MIN_SEAT_DISTANCE: f32 = SEAT_PITCH * 0.5;

fn seat_place(section: &SectionLayout, seat: &SeatLayout) -> Place {
    Place {
        section: Some(section.name.clone()),
        row: Some(seat.row.clone()),
        seat: Some(seat.label.clone()),
    }
}

/// Two seats in one spot: in venue coordinates, through a grid of cells a
/// minimum distance wide, so each seat is compared with its neighbours
/// only (the arena's 20,000 seats in a few milliseconds).
fn check_seats_apart(layout: &VenueLayout, errors: &mut Problems) {
    // Each cell's seats: (section index, seat index, where it stands).
    type Cell = Vec<(usize, usize, Point)>;
    let mut cells: std::collections::HashMap<(i64, i64), Cell> = std::collections::HashMap::new();
    let cell = |v: f32| (v / MIN_SEAT_DISTANCE).floor() as i64;
    for (s, section) in layout.sections.iter().enumerate() {
        for (i, seat) in section.seats.iter().enumerate() {
            let at = section.placement.apply(Point::new(seat.x, seat.y));
            let (cx, cy) = (cell(at.x), cell(at.y));
            let clash = (cx - 1..=cx + 1)
                .flat_map(|x| (cy - 1..=cy + 1).map(move |y| (x, y)))
                .filter_map(|key| cells.get(&key))
                .flatten()
                .find(|(_, _, other)| {
                    (other.x - at.x).powi(2) + (other.y - at.y).powi(2)
                        < MIN_SEAT_DISTANCE * MIN_SEAT_DISTANCE
                })
                .copied();
            if let Some((os, oi, _)) = clash {
                let other_section = &layout.sections[os];
                let other = &other_section.seats[oi];
                errors.push(
                    err(
                        &format!("sections[{s}]"),
                        format!(
                            "seat {} {} {} overlaps {} {} {}",
                            section.name,
                            seat.row,
                            seat.label,
                            other_section.name,
                            other.row,
                            other.label
                        ),
                    )
                    .of_kind(ProblemKind::Overlap)
                    .at_place(seat_place(section, seat)),
                );
            }
            cells.entry((cx, cy)).or_default().push((s, i, at));
        }
    }
}

/// A companion seat is for the person beside a wheelchair user: a
/// wheelchair space must be next to it in its row (or be the seat itself).
fn check_companions(layout: &VenueLayout, errors: &mut Problems) {
    for (s, section) in layout.sections.iter().enumerate() {
        let wheelchair: HashSet<(i32, i32)> = section
            .seats
            .iter()
            .filter(|seat| seat.flags.contains(&Flag::Wheelchair))
            .map(|seat| (seat.row_index, seat.position))
            .collect();
        for seat in &section.seats {
            if seat.flags.contains(&Flag::Companion)
                && !seat.flags.contains(&Flag::Wheelchair)
                && !wheelchair.contains(&(seat.row_index, seat.position - 1))
                && !wheelchair.contains(&(seat.row_index, seat.position + 1))
            {
                errors.push(
                    err(
                        &format!("sections[{s}]"),
                        format!(
                            "companion seat {} {} {} has no wheelchair space beside it",
                            section.name, seat.row, seat.label
                        ),
                    )
                    .of_kind(ProblemKind::CompanionAlone)
                    .at_place(seat_place(section, seat)),
                );
            }
        }
    }
}
