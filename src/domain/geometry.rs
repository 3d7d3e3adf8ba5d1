//! Plane geometry for venue maps: one coordinate space per venue, in map
//! units (a seat pitch is `layout::SEAT_PITCH`), x to the right and y down,
//! as on screen.

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

impl Point {
    pub const fn new(x: f32, y: f32) -> Point {
        Point { x, y }
    }
}

/// Where a section's own coordinates land in the venue: turned by
/// `rotation` degrees (clockwise on screen) about the section's origin,
/// then moved to `origin`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Placement {
    pub origin: Point,
    pub rotation: f32,
}

impl Placement {
    pub fn apply(&self, local: Point) -> Point {
        let (sin, cos) = self.rotation.to_radians().sin_cos();
        Point {
            x: self.origin.x + local.x * cos - local.y * sin,
            y: self.origin.y + local.x * sin + local.y * cos,
        }
    }
}

/// `point` turned by `degrees` (clockwise on screen, as CSS `rotate` and
/// `Placement` turn) about `pivot`.
pub fn turn_about(point: Point, pivot: Point, degrees: f32) -> Point {
    Placement {
        origin: pivot,
        rotation: degrees,
    }
    .apply(Point::new(point.x - pivot.x, point.y - pivot.y))
}

/// The direction rows run in, in degrees within (-90, 90]: the mean of
/// the chords (first seat to last), each weighted by its length and taken
/// without its sense, so a row numbered right to left counts the same as
/// one numbered left to right. None without a row of two seats.
pub fn mean_row_direction(chords: impl IntoIterator<Item = (Point, Point)>) -> Option<f32> {
    let (mut c, mut s) = (0.0f32, 0.0f32);
    for (first, last) in chords {
        let (dx, dy) = (last.x - first.x, last.y - first.y);
        let length = (dx * dx + dy * dy).sqrt();
        if length > f32::EPSILON {
            let doubled = 2.0 * dy.atan2(dx);
            c += length * doubled.cos();
            s += length * doubled.sin();
        }
    }
    if c.abs() < f32::EPSILON && s.abs() < f32::EPSILON {
        return None;
    }
    let degrees = (s.atan2(c) / 2.0).to_degrees();
    Some(if degrees <= -90.0 {
        degrees + 180.0
    } else {
        degrees
    })
}

/// The seat centres of a row bent around a point `radius` in front of the
/// section's front row (towards negative y), so that every row of the
/// section shares that centre: row `row_index` is `row_index` pitches
/// further out. Seats are spaced one pitch apart along the arc and the row
/// is centred on x = 0. `radius: None` gives a straight row.
pub fn row_positions(count: u32, row_index: u32, pitch: f32, radius: Option<f32>) -> Vec<Point> {
    let middle = (count as f32 - 1.0) / 2.0;
    let row_y = row_index as f32 * pitch;
    (0..count)
        .map(|i| {
            let along = (i as f32 - middle) * pitch;
            match radius {
                None => Point::new(along, row_y),
                Some(radius) => {
                    let r = radius + row_y;
                    let angle = along / r;
                    Point::new(r * angle.sin(), r * angle.cos() - radius)
                }
            }
        })
        .collect()
}

/// The smallest and largest x and y of some points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: Point,
    pub max: Point,
}

impl Bounds {
    pub fn of(points: impl IntoIterator<Item = Point>) -> Option<Bounds> {
        points.into_iter().fold(None, |bounds, p| {
            Some(match bounds {
                None => Bounds { min: p, max: p },
                Some(b) => Bounds {
                    min: Point::new(b.min.x.min(p.x), b.min.y.min(p.y)),
                    max: Point::new(b.max.x.max(p.x), b.max.y.max(p.y)),
                },
            })
        })
    }

    pub fn width(&self) -> f32 {
        self.max.x - self.min.x
    }

    pub fn height(&self) -> f32 {
        self.max.y - self.min.y
    }

    pub fn centre(&self) -> Point {
        Point::new(
            (self.min.x + self.max.x) / 2.0,
            (self.min.y + self.max.y) / 2.0,
        )
    }

    pub fn union(self, other: Bounds) -> Bounds {
        Bounds {
            min: Point::new(self.min.x.min(other.min.x), self.min.y.min(other.min.y)),
            max: Point::new(self.max.x.max(other.max.x), self.max.y.max(other.max.y)),
        }
    }

    /// The four corners, clockwise from the top left.
    pub fn corners(&self) -> Vec<Point> {
        vec![
            self.min,
            Point::new(self.max.x, self.min.y),
            self.max,
            Point::new(self.min.x, self.max.y),
        ]
    }
}

/// The convex hull (Andrew's monotone chain), clockwise on screen.
pub fn convex_hull(points: &[Point]) -> Vec<Point> {
    let mut sorted: Vec<Point> = points.to_vec();
    sorted.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    sorted.dedup();
    if sorted.len() < 3 {
        return sorted;
    }
    let cross =
        |o: Point, a: Point, b: Point| (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
    let mut lower: Vec<Point> = Vec::new();
    for &p in &sorted {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], p) <= 0.0 {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<Point> = Vec::new();
    for &p in sorted.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], p) <= 0.0 {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// The most points a drawn outline has: the database stores at most 1,000
/// (`sections.outline`), and a drawing needs far fewer.
pub const MAX_OUTLINE_POINTS: usize = 500;

/// An outline around seat centres: their hull, grown by `margin` on every
/// side (each seat's square corners are hulled, so the outline clears the
/// seats and not just their centres). A hull with more than
/// `MAX_OUTLINE_POINTS` corners (one long curved row of thousands of seats)
/// gives way to the box around the same corners.
pub fn outline_around(centres: &[Point], margin: f32) -> Vec<Point> {
    let corners: Vec<Point> = centres
        .iter()
        .flat_map(|c| {
            [
                Point::new(c.x - margin, c.y - margin),
                Point::new(c.x + margin, c.y - margin),
                Point::new(c.x + margin, c.y + margin),
                Point::new(c.x - margin, c.y + margin),
            ]
        })
        .collect();
    let hull = convex_hull(&corners);
    if hull.len() <= MAX_OUTLINE_POINTS {
        return hull;
    }
    Bounds::of(hull).map_or_else(Vec::new, |b| b.corners())
}

/// The centre of a polygon's area (its vertex mean if it has none).
pub fn centroid(polygon: &[Point]) -> Point {
    let n = polygon.len();
    if n == 0 {
        return Point::default();
    }
    let (mut area, mut cx, mut cy) = (0.0f32, 0.0f32, 0.0f32);
    for i in 0..n {
        let (a, b) = (polygon[i], polygon[(i + 1) % n]);
        let cross = a.x * b.y - b.x * a.y;
        area += cross;
        cx += (a.x + b.x) * cross;
        cy += (a.y + b.y) * cross;
    }
    if area.abs() < f32::EPSILON {
        let sum = polygon
            .iter()
            .fold(Point::default(), |s, p| Point::new(s.x + p.x, s.y + p.y));
        return Point::new(sum.x / n as f32, sum.y / n as f32);
    }
    Point::new(cx / (3.0 * area), cy / (3.0 * area))
}

/// Points as `[x, y]` pairs, the form layout files and the database use.
pub fn to_pairs(points: &[Point]) -> Vec<[f32; 2]> {
    points.iter().map(|p| [p.x, p.y]).collect()
}

pub fn from_pairs(pairs: &[[f32; 2]]) -> Vec<Point> {
    pairs.iter().map(|[x, y]| Point::new(*x, *y)).collect()
}

/// Flattened `x0, y0, x1, y1, …`, as a PostgreSQL `real[]`.
pub fn flatten(points: &[Point]) -> Vec<f32> {
    points.iter().flat_map(|p| [p.x, p.y]).collect()
}

pub fn unflatten(values: &[f32]) -> Vec<Point> {
    values
        .chunks_exact(2)
        .map(|pair| Point::new(pair[0], pair[1]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn placement_turns_clockwise_then_moves() {
        let quarter = Placement {
            origin: Point::new(100.0, 50.0),
            rotation: 90.0,
        };
        let p = quarter.apply(Point::new(10.0, 0.0));
        assert!(close(p.x, 100.0) && close(p.y, 60.0), "{p:?}");
    }

    #[test]
    fn curved_rows_share_a_centre_and_keep_the_pitch() {
        let front = row_positions(11, 0, 30.0, Some(300.0));
        let back = row_positions(11, 2, 30.0, Some(300.0));
        let centre = Point::new(0.0, -300.0);
        let distance = |p: Point| ((p.x - centre.x).powi(2) + (p.y - centre.y).powi(2)).sqrt();
        assert!(front.iter().all(|p| close(distance(*p), 300.0)));
        assert!(back.iter().all(|p| close(distance(*p), 360.0)));
        assert!(close(front[5].x, 0.0) && close(front[5].y, 0.0), "centred");
        // Neighbours are a pitch apart along the arc, so a chord a bit less.
        let chord = ((front[1].x - front[0].x).powi(2) + (front[1].y - front[0].y).powi(2)).sqrt();
        assert!(chord < 30.0 && chord > 29.9, "{chord}");
        assert!(
            front[0].y < front[5].y,
            "the ends wrap round towards the stage"
        );
    }

    #[test]
    fn straight_rows_are_centred() {
        let row = row_positions(3, 1, 30.0, None);
        assert_eq!(
            row,
            vec![
                Point::new(-30.0, 30.0),
                Point::new(0.0, 30.0),
                Point::new(30.0, 30.0)
            ]
        );
    }

    #[test]
    fn the_outline_clears_every_seat() {
        let seats = row_positions(5, 0, 30.0, Some(200.0));
        let outline = outline_around(&seats, 15.0);
        let bounds = Bounds::of(outline.iter().copied()).unwrap();
        for s in &seats {
            assert!(s.x - 15.0 >= bounds.min.x - 1e-3 && s.x + 15.0 <= bounds.max.x + 1e-3);
        }
        let c = centroid(&Bounds::of(seats.iter().copied()).unwrap().corners());
        assert!(close(c.x, 0.0));
    }

    #[test]
    fn a_huge_curved_row_gets_a_box_not_thousands_of_corners() {
        let seats = row_positions(3_000, 0, 30.0, Some(20_000.0));
        let outline = outline_around(&seats, 15.0);
        assert!(outline.len() <= MAX_OUTLINE_POINTS, "{}", outline.len());
        assert_eq!(outline.len(), 4);
    }
}
