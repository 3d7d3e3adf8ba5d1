//! Layouts from JSON: sections of rows of seats, general-admission areas;
//! the schema is static/venue-layout.schema.json.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;

use super::checks::{
    DEFAULT_TIME_ZONE, DraftSection, Venue, check_flags, check_outline, check_tiers, default_rank,
    err, finish, local_coordinate_ok,
};
use super::model::{
    GaArea, LayoutError, MAX_SEATS, MapLabel, Place, ProblemKind, Problems, SeatLayout, TierDef,
    VenueLayout,
};
use crate::domain::geometry::{self, Point};
use crate::domain::layout::SEAT_PITCH;
use crate::domain::text::{self, MAX_LABEL_CHARS, MAX_NAME_CHARS};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonLayout {
    name: String,
    time_zone: Option<String>,
    stage: Option<JsonStage>,
    tiers: Vec<TierDef>,
    #[serde(default)]
    sections: Vec<JsonSection>,
    #[serde(default)]
    ga_areas: Vec<GaArea>,
    #[serde(default)]
    labels: Vec<JsonLabel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonLabel {
    text: String,
    x: f64,
    y: f64,
    outline: Option<Vec<[f64; 2]>>,
}

/// The most labels a venue may have, and the longest a label may be.
const MAX_LABELS: usize = 200;
const MAX_LABEL_TEXT_CHARS: usize = 60;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonStage {
    outline: Vec<[f64; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonPoint {
    x: f64,
    y: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonSection {
    name: String,
    /// Where the section's origin sits in the venue; none: stacked below
    /// the sections before it.
    position: Option<JsonPoint>,
    /// Degrees clockwise about the section's origin.
    rotation: Option<f64>,
    /// Bends the rows the app lays out (`count` rows) around a point this
    /// far in front of the front row.
    curve: Option<f64>,
    /// In the section's own coordinates; none: drawn around its seats.
    outline: Option<Vec<[f64; 2]>>,
    /// What the designer drew the section from (rows, spacing, numbering),
    /// kept as it was given so the designer can lay it out again; the
    /// seats are the truth.
    design: Option<serde_json::Value>,
    rows: Vec<JsonRow>,
}

/// A row is either its seats one by one, or `count` seats the app lays
/// out: numbered from `first`, one tier, centred on the section's x = 0.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRow {
    label: String,
    seats: Option<Vec<JsonSeat>>,
    count: Option<u32>,
    first: Option<u32>,
    tier: Option<String>,
    /// For a `count` row: flags by seat label, e.g. `{"1": ["wheelchair"]}`.
    flags: Option<BTreeMap<String, Vec<String>>>,
    /// For a `count` row: restricted-view reasons by seat label.
    view_notes: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonSeat {
    label: String,
    tier: String,
    /// The seat's centre in the section's coordinates; both or neither
    /// (then the seat's place in its row and the row's place in its
    /// section decide).
    x: Option<f64>,
    y: Option<f64>,
    /// Overrides the computed best-available rank (lower is better).
    rank: Option<i64>,
    #[serde(default)]
    flags: Vec<String>,
    /// Why the view is restricted ("Pillar"); only with `restricted_view`.
    view_note: Option<String>,
}

/// The largest designer note a section may carry.
const MAX_DESIGN_BYTES: usize = 4_096;

/// The most seats one `count` row may lay out.
const MAX_ROW_COUNT: u32 = 1_000;

/// Parses and validates a JSON layout.
pub fn from_json(text: &str) -> Result<VenueLayout, Vec<LayoutError>> {
    let raw: JsonLayout = serde_json::from_str(text).map_err(|err| {
        vec![
            LayoutError::new(
                format!("line {}, column {}", err.line(), err.column()),
                err.to_string(),
            )
            .of_kind(ProblemKind::Syntax),
        ]
    })?;
    let mut errors = Problems::default();
    // Seats laid out so far: a `count` row makes many from a few bytes,
    // so the limit is kept while reading, not only checked at the end.
    let mut seat_total = 0usize;
    let tiers = check_tiers(&raw.tiers, &mut errors, |i| format!("tiers[{i}]"));
    let mut sections = Vec::new();
    let mut section_names = HashSet::new();
    'sections: for (s, section) in raw.sections.iter().enumerate() {
        let at = format!("sections[{s}]");
        if section.name.trim().is_empty() {
            errors.push(err(&at, "a section needs a name"));
        } else if let Some(problem) =
            text::problem("the section name", &section.name, MAX_NAME_CHARS)
        {
            errors.push(err(&at, problem));
        } else if !section_names.insert(section.name.clone()) {
            errors.push(
                err(&at, format!("duplicate section {:?}", section.name))
                    .of_kind(ProblemKind::DuplicateLabel),
            );
        }
        // An origin, not a seat: a section whose seats start right of
        // its own origin may sit with that origin left of the venue's
        // (the canonical form of a stacked CSV section does).
        let position = section.position.as_ref().map(|p| {
            if !(local_coordinate_ok(p.x) && local_coordinate_ok(p.y)) {
                errors.push(err(
                    &format!("{at}.position"),
                    format!("bad position ({}, {}): use -100000 to 100000", p.x, p.y),
                ));
            }
            Point::new(p.x as f32, p.y as f32)
        });
        let rotation = match section.rotation {
            Some(r) if r.is_finite() && (-360.0..=360.0).contains(&r) => r as f32,
            Some(r) => {
                errors.push(err(
                    &format!("{at}.rotation"),
                    format!("bad rotation {r}: use -360 to 360 degrees"),
                ));
                0.0
            }
            None => 0.0,
        };
        let curve = match section.curve {
            Some(c) if c.is_finite() && (f64::from(SEAT_PITCH)..=100_000.0).contains(&c) => {
                Some(c as f32)
            }
            Some(c) => {
                errors.push(err(
                    &format!("{at}.curve"),
                    format!("bad curve {c}: use a radius from {SEAT_PITCH} to 100000"),
                ));
                None
            }
            None => None,
        };
        let outline = section
            .outline
            .as_ref()
            .map(|o| check_outline(o, &format!("{at}.outline"), -100_000.0, &mut errors));
        let mut seats = Vec::new();
        let mut ranked = Vec::new();
        let mut row_labels = HashSet::new();
        for (r, row) in section.rows.iter().enumerate() {
            let at = format!("{at}.rows[{r}]");
            if row.label.trim().is_empty() {
                errors.push(err(&at, "a row needs a label"));
            } else if let Some(problem) =
                text::problem("the row label", &row.label, MAX_LABEL_CHARS)
            {
                errors.push(err(&at, problem));
            } else if !row_labels.insert(row.label.clone()) {
                errors.push(
                    err(
                        &at,
                        format!(
                            "duplicate row {} in {}",
                            text::quoted(&row.label),
                            text::quoted(&section.name)
                        ),
                    )
                    .of_kind(ProblemKind::DuplicateLabel),
                );
            }
            let laid_out;
            let row_seats: &[JsonSeat] = match (&row.seats, row.count) {
                (Some(seats), None)
                    if row.tier.is_none()
                        && row.first.is_none()
                        && row.flags.is_none()
                        && row.view_notes.is_none() =>
                {
                    seats
                }
                (None, Some(count)) if (1..=MAX_ROW_COUNT).contains(&count) => {
                    if seat_total + count as usize > MAX_SEATS {
                        errors.push(err(
                            &at,
                            format!("more than {MAX_SEATS} seats; the rest was not read"),
                        ));
                        break 'sections;
                    }
                    match &row.tier {
                        // An unknown tier is one problem for the row, not
                        // one for each seat it would lay out.
                        Some(tier) if !tiers.contains(tier.as_str()) => {
                            errors.push(
                                err(&at, format!("unknown tier {}", text::quoted(tier)))
                                    .of_kind(ProblemKind::Unpainted),
                            );
                            &[]
                        }
                        Some(tier) => {
                            let first = u64::from(row.first.unwrap_or(1));
                            laid_out = geometry::row_positions(count, r as u32, SEAT_PITCH, curve)
                                .iter()
                                .enumerate()
                                .map(|(i, p)| {
                                    let label = (first + i as u64).to_string();
                                    JsonSeat {
                                        view_note: row
                                            .view_notes
                                            .as_ref()
                                            .and_then(|notes| notes.get(&label))
                                            .cloned(),
                                        flags: row
                                            .flags
                                            .as_ref()
                                            .and_then(|flags| flags.get(&label))
                                            .cloned()
                                            .unwrap_or_default(),
                                        label,
                                        tier: tier.clone(),
                                        x: Some(f64::from(p.x)),
                                        y: Some(f64::from(p.y)),
                                        rank: None,
                                    }
                                })
                                .collect::<Vec<_>>();
                            if let Some(stray) =
                                row.view_notes.iter().flatten().find(|(label, _)| {
                                    !laid_out.iter().any(|seat| &seat.label == *label)
                                })
                            {
                                errors.push(err(
                                    &at,
                                    format!(
                                        "a view note for seat {}, which the row does not have",
                                        text::quoted(stray.0)
                                    ),
                                ));
                            }
                            if let Some(stray) = row.flags.iter().flatten().find(|(label, _)| {
                                !laid_out.iter().any(|seat| &seat.label == *label)
                            }) {
                                errors.push(err(
                                    &at,
                                    format!(
                                        "flags for seat {}, which the row does not have",
                                        text::quoted(stray.0)
                                    ),
                                ));
                            }
                            &laid_out
                        }
                        None => {
                            errors.push(err(&at, "a row with a count needs a tier"));
                            &[]
                        }
                    }
                }
                (None, Some(count)) => {
                    errors.push(err(
                        &at,
                        format!("bad count {count}: use 1 to {MAX_ROW_COUNT}"),
                    ));
                    &[]
                }
                _ => {
                    errors.push(err(
                        &at,
                        "give the row either its seats, or a count and a tier (and a first number)",
                    ));
                    &[]
                }
            };
            seat_total += row_seats.len();
            if seat_total > MAX_SEATS {
                errors.push(err(
                    &at,
                    format!("more than {MAX_SEATS} seats; the rest was not read"),
                ));
                break 'sections;
            }
            let mut seat_labels = HashSet::new();
            for (p, seat) in row_seats.iter().enumerate() {
                let at = format!("{at}.seats[{p}]");
                if seat.label.trim().is_empty() {
                    errors.push(err(&at, "a seat needs a label"));
                } else if let Some(problem) =
                    text::problem("the seat label", &seat.label, MAX_LABEL_CHARS)
                {
                    errors.push(err(&at, problem));
                } else if !seat_labels.insert(seat.label.clone()) {
                    errors.push(
                        err(
                            &at,
                            format!(
                                "duplicate seat {} {} {}",
                                text::shortened(&section.name),
                                row.label,
                                seat.label
                            ),
                        )
                        .of_kind(ProblemKind::DuplicateLabel),
                    );
                }
                if !tiers.contains(seat.tier.as_str()) {
                    errors.push(
                        err(&at, format!("unknown tier {}", text::quoted(&seat.tier)))
                            .of_kind(ProblemKind::Unpainted),
                    );
                }
                let (x, y) = match (seat.x, seat.y) {
                    (Some(x), Some(y)) if local_coordinate_ok(x) && local_coordinate_ok(y) => {
                        (x as f32, y as f32)
                    }
                    (Some(x), Some(y)) => {
                        errors.push(err(
                            &at,
                            format!("bad coordinate ({x}, {y}): use -100000 to 100000"),
                        ));
                        (0.0, 0.0)
                    }
                    (None, None) => (p as f32 * SEAT_PITCH, r as f32 * SEAT_PITCH),
                    _ => {
                        errors.push(err(&at, "give both x and y, or neither"));
                        (0.0, 0.0)
                    }
                };
                let rank = match seat.rank {
                    Some(rank) if (0..=i64::from(i32::MAX)).contains(&rank) => rank as i32,
                    Some(rank) => {
                        errors.push(err(&at, format!("bad rank {rank}: use 0 or more")));
                        0
                    }
                    None => default_rank(s, r, p, row_seats.len()),
                };
                ranked.push(seat.rank.is_some());
                let flags = check_flags(&seat.flags, &at, &mut errors);
                let view_note = super::checks::check_view_note(
                    seat.view_note.as_deref(),
                    &flags,
                    &at,
                    &mut errors,
                );
                seats.push(SeatLayout {
                    row: row.label.clone(),
                    label: seat.label.clone(),
                    row_index: r as i32,
                    position: p as i32,
                    x,
                    y,
                    rank,
                    tier: seat.tier.clone(),
                    flags,
                    view_note,
                });
            }
        }
        let design = section.design.clone().filter(|design| {
            let fits = design.is_object() && design.to_string().len() <= MAX_DESIGN_BYTES;
            if !fits {
                errors.push(err(
                    &format!("{at}.design"),
                    format!("design must be an object of at most {MAX_DESIGN_BYTES} bytes"),
                ));
            }
            fits
        });
        sections.push(DraftSection {
            design,
            name: section.name.clone(),
            position,
            rotation,
            outline,
            seats,
            ranked,
        });
    }
    for (g, area) in raw.ga_areas.iter().enumerate() {
        let at = format!("ga_areas[{g}]");
        if area.name.trim().is_empty() {
            errors.push(err(&at, "an area needs a name"));
        } else if let Some(problem) = text::problem("the area name", &area.name, MAX_NAME_CHARS) {
            errors.push(err(&at, problem));
        } else if !section_names.insert(area.name.clone()) {
            errors.push(
                err(&at, format!("{:?} is already a section or area", area.name))
                    .of_kind(ProblemKind::DuplicateLabel),
            );
        }
        if !tiers.contains(area.tier.as_str()) {
            errors.push(
                err(&at, format!("unknown tier {}", text::quoted(&area.tier)))
                    .of_kind(ProblemKind::Unpainted),
            );
        }
        if area.capacity == 0 || area.capacity > 1_000_000 {
            errors.push(err(
                &at,
                format!("bad capacity {}: use 1 to 1000000", area.capacity),
            ));
        }
        if let Some(outline) = &area.outline {
            let pairs: Vec<[f64; 2]> = outline
                .iter()
                .map(|[x, y]| [f64::from(*x), f64::from(*y)])
                .collect();
            check_outline(&pairs, &format!("{at}.outline"), 0.0, &mut errors);
        }
    }
    let stage = raw
        .stage
        .as_ref()
        .map(|stage| check_outline(&stage.outline, "stage.outline", 0.0, &mut errors));
    let time_zone = raw
        .time_zone
        .unwrap_or_else(|| DEFAULT_TIME_ZONE.to_string());
    if jiff::tz::TimeZone::get(&time_zone).is_err() {
        errors.push(err(
            "time_zone",
            format!(
                "unknown time zone {:?}: use an IANA name such as Europe/London",
                text::shortened(&time_zone)
            ),
        ));
    }
    if raw.labels.len() > MAX_LABELS {
        errors.push(err("labels", format!("at most {MAX_LABELS} labels")));
    }
    let labels = raw
        .labels
        .iter()
        .enumerate()
        .map(|(l, label)| {
            let at = format!("labels[{l}]");
            if label.text.trim().is_empty() {
                errors.push(err(&at, "a label needs text"));
            } else if let Some(problem) =
                text::problem("the label", &label.text, MAX_LABEL_TEXT_CHARS)
            {
                errors.push(err(&at, problem));
            }
            let placed = |c: f64| c.is_finite() && (0.0..=100_000.0).contains(&c);
            if !(placed(label.x) && placed(label.y)) {
                errors.push(err(
                    &at,
                    format!("bad point ({}, {}): use 0 to 100000", label.x, label.y),
                ));
            }
            MapLabel {
                text: label.text.clone(),
                at: Point::new(label.x as f32, label.y as f32),
                outline: label
                    .outline
                    .as_ref()
                    .map(|o| check_outline(o, &format!("{at}.outline"), 0.0, &mut errors)),
            }
        })
        .collect();
    let area_names: Vec<String> = raw.ga_areas.iter().map(|a| a.name.clone()).collect();
    finish(
        Venue {
            name: raw.name,
            time_zone,
            stage,
            tiers: raw.tiers,
            ga_areas: raw.ga_areas,
            labels,
        },
        sections,
        errors,
    )
    .map_err(|errors| {
        errors
            .into_iter()
            .map(|error| {
                if error.place == Place::default() {
                    let place = locate(&error.at, &raw.sections, &area_names);
                    error.at_place(place)
                } else {
                    error
                }
            })
            .collect()
    })
}

/// The names a JSON path (`sections[2].rows[0].seats[5]`, `ga_areas[1]`)
/// points at in the file as read.
fn locate(at: &str, sections: &[JsonSection], area_names: &[String]) -> Place {
    let index = |part: &str, name: &str| -> Option<usize> {
        part.strip_prefix(name)?
            .strip_prefix('[')?
            .split(']')
            .next()?
            .parse()
            .ok()
    };
    let mut parts = at.split('.');
    let Some(first) = parts.next() else {
        return Place::default();
    };
    if let Some(area) = index(first, "ga_areas").and_then(|a| area_names.get(a)) {
        return Place {
            section: Some(area.clone()),
            ..Place::default()
        };
    }
    let Some(section) = index(first, "sections").and_then(|s| sections.get(s)) else {
        return Place::default();
    };
    let mut place = Place {
        section: Some(section.name.clone()),
        ..Place::default()
    };
    if let Some(row) = parts
        .next()
        .and_then(|part| index(part, "rows"))
        .and_then(|r| section.rows.get(r))
    {
        place.row = Some(row.label.clone());
        place.seat = parts
            .next()
            .and_then(|part| index(part, "seats"))
            .and_then(|p| row.seats.as_ref()?.get(p))
            .map(|seat| seat.label.clone());
    }
    place
}
