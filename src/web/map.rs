//! The seat map's view models: seats where they stand in the venue, row
//! labels at both ends of each row, the shapes drawn under them, and the
//! overview of section shapes that big venues open on.

use crate::db::events::Tier;
use crate::db::map::{MapShapes, SectionShape};
use crate::domain::geometry::{self, Bounds, Point};
use crate::domain::ids::SectionId;
use crate::domain::layout::SEAT_PITCH;
use crate::domain::seat::Seat;
pub use crate::web::map_filters::{FeatureFilter, PriceFilter};
use crate::web::seat_view::SeatView;

/// Room around what is drawn, for row labels and outlines.
const MARGIN: f32 = 2.0 * SEAT_PITCH;

/// A polygon in venue coordinates, as SVG draws it, and where its name goes.
pub struct ShapeView {
    pub name: String,
    pub points: String,
    pub label_x: f32,
    pub label_y: f32,
    /// The name's font size: at most 16 px, smaller where the shape is too
    /// narrow for it ("BÜHNE" on a small stage).
    pub label_size: f32,
}

/// The widest a label's letters are, per letter, in ems: upper case with
/// the stylesheet's 0.2 em spacing.
const LABEL_EMS_PER_CHAR: f32 = 0.95;

impl ShapeView {
    pub(crate) fn new(name: &str, outline: &[Point]) -> ShapeView {
        let centre = geometry::centroid(outline);
        let (left, right) = outline
            .iter()
            .fold((f32::MAX, f32::MIN), |(l, r), p| (l.min(p.x), r.max(p.x)));
        let room = (right - left) * 0.85;
        let chars = name.chars().count().max(1) as f32;
        ShapeView {
            name: name.to_string(),
            points: svg_points(outline),
            label_x: centre.x,
            label_y: centre.y,
            label_size: (room / (chars * LABEL_EMS_PER_CHAR)).clamp(6.0, 16.0),
        }
    }
}

pub(crate) fn svg_points(outline: &[Point]) -> String {
    outline
        .iter()
        .map(|p| format!("{:.1},{:.1}", p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ")
}

pub struct RowLabelView {
    pub label: String,
    /// The label's centre, in venue coordinates.
    pub x: f32,
    pub y: f32,
    /// Its row, as its seats name it (their section and `data-row`), so
    /// the phone's rail of row letters can name the rows whose seats are
    /// at the frame's edge.
    pub section: String,
    pub row: i32,
}

pub struct SeatGroup {
    pub id: SectionId,
    pub name: String,
    pub seats: Vec<SeatView>,
    /// Where the section's name is drawn (above its seats).
    pub label_x: f32,
    pub label_y: f32,
}

/// How a section shown on its own is turned: so its rows run across the
/// screen and its front (the side facing the stage) is at the top. The
/// seats keep their venue coordinates (live updates place them there); the
/// page turns their layer and the outlines, and turns each seat and row
/// label back so their numbers stay upright.
pub struct Turn {
    pub degrees: f32,
    pub pivot: Point,
    /// The layer's extra style: ";transform-origin:…;rotate:…".
    pub layer_style: String,
    /// The SVG group's transform for the outlines.
    pub svg_transform: String,
    /// Turns a seat or a row label back upright: the negated angle.
    pub upright: String,
}

impl Turn {
    fn new(degrees: f32, pivot: Point) -> Turn {
        Turn {
            degrees,
            pivot,
            layer_style: format!(
                ";transform-origin:{:.1}px {:.1}px;rotate:{degrees:.2}deg",
                pivot.x, pivot.y
            ),
            svg_transform: format!("rotate({degrees:.2} {:.1} {:.1})", pivot.x, pivot.y),
            upright: format!("{:.2}deg", -degrees),
        }
    }

    fn apply(&self, point: Point) -> Point {
        geometry::turn_about(point, self.pivot, self.degrees)
    }
}

/// Where a section shown alone says which way the stage is: a bar above
/// its seats, in the canvas' (turned) coordinates.
pub struct StageMarker {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub label_x: f32,
    pub label_y: f32,
}

/// The turn that puts a section's rows across the screen with its front
/// up: the front is towards the stage's centre, or, in a venue drawn
/// without a stage, towards its first row. None when no turn is needed
/// (within half a degree) or there is no row of two seats to go by.
pub fn facing_turn(seats: &[Seat], stage: &[Point]) -> Option<Turn> {
    let mut chords: Vec<(Point, Point)> = Vec::new();
    let mut start = 0;
    for i in 1..=seats.len() {
        let row_ends_here = i == seats.len()
            || seats[i].row_label != seats[start].row_label
            || seats[i].section_id != seats[start].section_id;
        if row_ends_here {
            let (first, last) = (&seats[start], &seats[i - 1]);
            chords.push((Point::new(first.x, first.y), Point::new(last.x, last.y)));
            start = i;
        }
    }
    let along = geometry::mean_row_direction(chords.iter().copied())?;
    let pivot = Bounds::of(seats.iter().map(|s| Point::new(s.x, s.y)))?.centre();
    let front = if stage.len() >= 3 {
        geometry::centroid(stage)
    } else {
        let first_row = seats.iter().map(|s| s.row_index).min()?;
        let row: Vec<Point> = seats
            .iter()
            .filter(|s| s.row_index == first_row)
            .map(|s| Point::new(s.x, s.y))
            .collect();
        Bounds::of(row.iter().copied())?.centre()
    };
    let mut degrees = -along;
    if geometry::turn_about(front, pivot, degrees).y > pivot.y {
        degrees += 180.0;
    }
    if degrees > 180.0 {
        degrees -= 360.0;
    }
    (degrees.abs() >= 0.5).then(|| Turn::new(degrees, pivot))
}

/// Seats drawn where they stand. The page scales and pans it; without
/// JavaScript it scrolls.
pub struct SeatCanvas {
    /// The drawn area in venue coordinates: the layer inside the canvas is
    /// moved by `-min` so that this area starts at the canvas' corner.
    pub min_x: f32,
    pub min_y: f32,
    pub width: f32,
    pub height: f32,
    /// `-min`, where the layer of seats sits in the canvas.
    pub layer_left: f32,
    pub layer_top: f32,
    /// The SVG viewBox over the same area.
    pub view_box: String,
    pub stage: Option<ShapeView>,
    /// Outlines of the sections shown.
    pub outlines: Vec<ShapeView>,
    pub areas: Vec<ShapeView>,
    /// Words for finding one's way ("Bar", "Exit"), on the whole venue.
    pub labels: Vec<LabelView>,
    pub rows: Vec<RowLabelView>,
    pub sections: Vec<SeatGroup>,
    /// The whole venue is drawn (not one section of a big one).
    pub whole: bool,
    /// A section shown alone, turned to face up.
    pub turn: Option<Turn>,
    /// A section shown alone, in a venue with a stage.
    pub stage_marker: Option<StageMarker>,
}

/// Groups seats (in layout order) by section and places them, with their
/// sections' outlines, the stage and standing areas when the whole venue
/// is shown (`whole`).
pub fn seat_canvas(seats: &[Seat], tiers: &[Tier], shapes: &MapShapes, whole: bool) -> SeatCanvas {
    let mut sections: Vec<SeatGroup> = Vec::new();
    let mut rows: Vec<RowLabelView> = Vec::new();
    let mut row_seats: Vec<Point> = Vec::new();
    let mut seats_before: Option<&Seat> = None;
    let mut row_name = String::new();
    // The row being gathered: its section and index, as its seats say.
    let mut row_key = (String::new(), 0);
    let flush_row =
        |rows: &mut Vec<RowLabelView>, label: &str, key: &(String, i32), seats: &[Point]| {
            if let Some((start, end)) = row_ends(seats) {
                for at in [start, end] {
                    rows.push(RowLabelView {
                        label: label.to_string(),
                        x: at.x,
                        y: at.y,
                        section: key.0.clone(),
                        row: key.1,
                    });
                }
            }
        };
    for seat in seats {
        if sections.last().is_none_or(|s| s.id != seat.section_id) {
            flush_row(&mut rows, &row_name, &row_key, &row_seats);
            row_seats.clear();
            sections.push(SeatGroup {
                id: seat.section_id,
                name: seat.section.clone(),
                seats: Vec::new(),
                label_x: 0.0,
                label_y: 0.0,
            });
        }
        if row_name != seat.row_label || row_seats.is_empty() {
            flush_row(&mut rows, &row_name, &row_key, &row_seats);
            row_seats.clear();
            row_name = seat.row_label.clone();
            row_key = (seat.section.clone(), seat.row_index);
        }
        // An aisle (a skipped position) gets the row's label too, in the
        // gap: on a curved row the ends' labels sit a row or two above its
        // middle seats, and the eye runs along the wrong row.
        if let Some(previous) = seats_before
            && previous.row_label == seat.row_label
            && previous.section_id == seat.section_id
            && seat.position > previous.position + 1
        {
            rows.push(RowLabelView {
                label: seat.row_label.clone(),
                x: (previous.x + seat.x) / 2.0,
                y: (previous.y + seat.y) / 2.0,
                section: seat.section.clone(),
                row: seat.row_index,
            });
        }
        seats_before = Some(seat);
        row_seats.push(Point::new(seat.x, seat.y));
        let group = sections.last_mut().expect("pushed above");
        group.seats.push(SeatView::new(seat, tiers));
    }
    flush_row(&mut rows, &row_name, &row_key, &row_seats);
    let turn = if whole {
        None
    } else {
        facing_turn(seats, &shapes.stage)
    };
    let turned = |p: Point| turn.as_ref().map_or(p, |t| t.apply(p));
    let shown: Vec<&SectionShape> = shapes
        .sections
        .iter()
        .filter(|shape| sections.iter().any(|s| s.id == shape.id))
        .collect();
    for group in &mut sections {
        if let Some(shape) = shown.iter().find(|s| s.id == group.id)
            && let Some(b) = Bounds::of(shape.outline.iter().copied().map(turned))
        {
            group.label_x = b.centre().x;
            group.label_y = b.min.y - SEAT_PITCH * 0.6;
        }
    }
    let seat_bounds = Bounds::of(seats.iter().map(|s| turned(Point::new(s.x, s.y))));
    let outline_bounds = shown
        .iter()
        .filter_map(|s| Bounds::of(s.outline.iter().copied().map(turned)))
        .reduce(Bounds::union);
    let mut drawn = [seat_bounds, outline_bounds]
        .into_iter()
        .flatten()
        .reduce(Bounds::union);
    if whole {
        drawn = [drawn, shapes.bounds()]
            .into_iter()
            .flatten()
            .reduce(Bounds::union);
    }
    let mut drawn = drawn.unwrap_or(Bounds {
        min: Point::default(),
        max: Point::default(),
    });
    // Above the section's name (drawn 0.6 pitch above its outline).
    let stage_marker = (!whole && shapes.stage.len() >= 3).then(|| {
        let width = (drawn.width() * 0.5).clamp(4.0 * SEAT_PITCH, 12.0 * SEAT_PITCH);
        let height = 0.9 * SEAT_PITCH;
        let x = drawn.centre().x - width / 2.0;
        let y = drawn.min.y - 2.2 * SEAT_PITCH;
        drawn.min.y = y;
        StageMarker {
            x,
            y,
            width,
            height,
            label_x: x + width / 2.0,
            label_y: y + height / 2.0,
        }
    });
    let min = Point::new(drawn.min.x - MARGIN, drawn.min.y - MARGIN);
    let (width, height) = (drawn.width() + 2.0 * MARGIN, drawn.height() + 2.0 * MARGIN);
    SeatCanvas {
        min_x: min.x,
        min_y: min.y,
        width,
        height,
        layer_left: -min.x,
        layer_top: -min.y,
        view_box: format!("{:.1} {:.1} {:.1} {:.1}", min.x, min.y, width, height),
        stage: (whole && shapes.stage.len() >= 3)
            .then(|| ShapeView::new(&crate::i18n::t("map-stage"), &shapes.stage)),
        outlines: shown
            .iter()
            .filter(|s| s.outline.len() >= 3)
            .map(|s| ShapeView::new(&s.name, &s.outline))
            .collect(),
        areas: if whole {
            shapes
                .areas
                .iter()
                .map(|a| ShapeView::new(&a.name, &a.outline))
                .collect()
        } else {
            Vec::new()
        },
        labels: if whole {
            shapes.labels.iter().map(LabelView::new).collect()
        } else {
            Vec::new()
        },
        rows,
        sections,
        whole,
        turn,
        stage_marker,
    }
}

/// A label for orientation, as SVG draws it (venue coordinates).
pub struct LabelView {
    pub text: String,
    pub x: f32,
    pub y: f32,
    /// Its shape's points, if it has one.
    pub points: Option<String>,
}

impl LabelView {
    pub(crate) fn new(label: &crate::domain::venue::MapLabel) -> LabelView {
        LabelView {
            text: label.text.clone(),
            x: label.at.x,
            y: label.at.y,
            points: label
                .outline
                .as_ref()
                .filter(|o| o.len() >= 3)
                .map(|o| svg_points(o)),
        }
    }
}

/// Where a row's labels go: a pitch beyond each end seat, along the row.
fn row_ends(seats: &[Point]) -> Option<(Point, Point)> {
    let first = *seats.first()?;
    let last = *seats.last()?;
    // Outward from the seat next to the end; straight out sideways if
    // there is none (a one-seat row) or it is in the same place.
    let beyond = |end: Point, inner: Point, sideways: f32| {
        let (dx, dy) = if inner == end {
            (sideways, 0.0)
        } else {
            (end.x - inner.x, end.y - inner.y)
        };
        let length = (dx * dx + dy * dy).sqrt();
        Point::new(
            end.x + dx / length * SEAT_PITCH,
            end.y + dy / length * SEAT_PITCH,
        )
    };
    let second = seats.get(1).copied().unwrap_or(first);
    let second_last = seats.len().checked_sub(2).map_or(last, |i| seats[i]);
    Some((beyond(first, second, -1.0), beyond(last, second_last, 1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::map::MapShapes;
    use crate::domain::seat::SeatState;
    use crate::web::seat_view::SEAT_SIZE;
    use crate::web::seat_view::tests::{seat, tiers};

    #[test]
    fn seats_group_by_section_with_a_label_at_both_ends_of_each_row() {
        let seats = vec![
            seat(1, 1, "A", 100.0, 100.0, SeatState::Available),
            seat(2, 1, "A", 130.0, 100.0, SeatState::Available),
            seat(3, 1, "B", 100.0, 130.0, SeatState::Sold),
            seat(4, 2, "A", 400.0, 100.0, SeatState::Available),
        ];
        let canvas = seat_canvas(&seats, &tiers(), &MapShapes::default(), false);
        assert_eq!(canvas.sections.len(), 2);
        assert_eq!(canvas.sections[0].seats.len(), 3);
        let labels: Vec<(&str, f32, f32)> = canvas
            .rows
            .iter()
            .map(|r| (r.label.as_str(), r.x, r.y))
            .collect();
        assert_eq!(
            labels,
            [
                ("A", 70.0, 100.0),
                ("A", 160.0, 100.0),
                ("B", 70.0, 130.0),
                ("B", 130.0, 130.0),
                ("A", 370.0, 100.0),
                ("A", 430.0, 100.0),
            ]
        );
        // Everything drawn fits: the left label's centre is inside the canvas.
        assert!(canvas.min_x <= 70.0 - SEAT_SIZE && canvas.min_x + canvas.width >= 430.0);
        assert_eq!(canvas.layer_left, -canvas.min_x);
    }

    /// Two rows of three seats, turned `degrees` about (0, 0) as a layout
    /// places a section; row A (index 0) is the front.
    fn turned_section(degrees: f32) -> Vec<Seat> {
        let place = geometry::Placement {
            origin: Point::default(),
            rotation: degrees,
        };
        let mut seats = Vec::new();
        for (row_index, row) in ["A", "B"].into_iter().enumerate() {
            for i in 0..3 {
                let at = place.apply(Point::new(i as f32 * 30.0, row_index as f32 * 30.0));
                let mut s = seat(
                    seats.len() as i64 + 1,
                    1,
                    row,
                    at.x,
                    at.y,
                    SeatState::Available,
                );
                s.row_index = row_index as i32;
                seats.push(s);
            }
        }
        seats
    }

    #[test]
    fn a_section_alone_turns_so_its_rows_run_across_with_the_stage_on_top() {
        for degrees in [30.0f32, 135.0, -100.0, 200.0] {
            let seats = turned_section(degrees);
            // The stage is in front of row A, wherever the section faces.
            let front = geometry::Placement {
                origin: Point::default(),
                rotation: degrees,
            }
            .apply(Point::new(30.0, -300.0));
            let stage = vec![
                Point::new(front.x - 5.0, front.y - 5.0),
                Point::new(front.x + 5.0, front.y - 5.0),
                Point::new(front.x, front.y + 5.0),
            ];
            let turn = facing_turn(&seats, &stage).expect("a turned section is turned back");
            let shown: Vec<Point> = seats
                .iter()
                .map(|s| turn.apply(Point::new(s.x, s.y)))
                .collect();
            // Each row's seats share a height; row A is above row B.
            for row in shown.chunks(3) {
                assert!(
                    row.iter().all(|p| (p.y - row[0].y).abs() < 0.01),
                    "{degrees}: {row:?}"
                );
            }
            assert!(
                shown[0].y < shown[3].y,
                "{degrees}: the front row is on top"
            );
            let stage_shown = turn.apply(geometry::centroid(&stage));
            assert!(
                stage_shown.y < shown[0].y,
                "{degrees}: the stage is above the seats"
            );
        }
        // A stage behind row B (a section facing away from the layout's
        // front row) puts row B on top: the stage decides, not the order.
        let seats = turned_section(30.0);
        let behind = geometry::Placement {
            origin: Point::default(),
            rotation: 30.0,
        }
        .apply(Point::new(30.0, 330.0));
        let stage = vec![
            Point::new(behind.x - 5.0, behind.y - 5.0),
            Point::new(behind.x + 5.0, behind.y - 5.0),
            Point::new(behind.x, behind.y + 5.0),
        ];
        let turn = facing_turn(&seats, &stage).expect("turned");
        let a = turn.apply(Point::new(seats[0].x, seats[0].y));
        let b = turn.apply(Point::new(seats[3].x, seats[3].y));
        assert!(b.y < a.y, "row B, nearest the stage, is on top");
        // Square already: nothing to turn. Without a stage, row A goes up.
        assert!(facing_turn(&turned_section(0.0), &[]).is_none());
        let upside_down = facing_turn(&turned_section(180.0), &[]).expect("turned");
        assert!((upside_down.degrees.abs() - 180.0).abs() < 0.01);
    }

    #[test]
    fn the_whole_venue_is_never_turned_and_a_section_gets_a_stage_marker_above_it() {
        let seats = turned_section(40.0);
        let shapes = MapShapes {
            stage: vec![
                Point::new(-20.0, -300.0),
                Point::new(20.0, -300.0),
                Point::new(0.0, -280.0),
            ],
            ..MapShapes::default()
        };
        assert!(seat_canvas(&seats, &tiers(), &shapes, true).turn.is_none());
        let alone = seat_canvas(&seats, &tiers(), &shapes, false);
        assert!(alone.turn.is_some());
        let marker = alone.stage_marker.expect("a marker");
        assert!(
            marker.y + marker.height < alone.sections[0].label_y,
            "above the name"
        );
        assert!(marker.y >= alone.min_y, "inside the canvas");
    }

    #[test]
    fn row_labels_sit_a_pitch_beyond_each_end_along_the_row() {
        let row = [
            Point::new(100.0, 100.0),
            Point::new(130.0, 100.0),
            Point::new(160.0, 110.0),
        ];
        let (start, end) = row_ends(&row).unwrap();
        assert_eq!(start, Point::new(70.0, 100.0));
        assert!((end.x - 160.0 - 30.0 * 30.0 / 31.62).abs() < 0.1, "{end:?}");
        assert!(end.y > 110.0, "follows the row's bend: {end:?}");
    }
}
