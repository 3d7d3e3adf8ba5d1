//! What the map draws besides seats: the stage, each section's shape with
//! what is left in it, and where general-admission areas are.

use super::GenericClient;
use crate::domain::geometry::{self, Bounds, Point};
use crate::domain::ids::EventId;
use crate::domain::ids::{AreaId, HoldId, SectionId};
use crate::domain::venue::MapLabel;
use crate::error::AppResult;

#[derive(Debug, Clone)]
pub struct SectionShape {
    pub id: SectionId,
    pub name: String,
    /// In venue coordinates: the stored outline, or the box around the
    /// section's seats for events made before outlines were.
    pub outline: Vec<Point>,
    pub seats_total: i64,
    /// Free now (a lapsed hold counts as free, as claims treat it).
    pub seats_available: i64,
    /// The cheapest free seat's price and tier code.
    pub from_cents: Option<i32>,
    pub from_tier: Option<String>,
    /// The codes of the tiers with a free seat here.
    pub free_tiers: Vec<String>,
    /// How many seats here the viewer's hold has.
    pub mine: i64,
}

#[derive(Debug, Clone)]
pub struct AreaShape {
    pub id: AreaId,
    pub name: String,
    pub outline: Vec<Point>,
}

#[derive(Debug, Clone, Default)]
pub struct MapShapes {
    pub stage: Vec<Point>,
    pub sections: Vec<SectionShape>,
    pub areas: Vec<AreaShape>,
    pub labels: Vec<MapLabel>,
}

impl MapShapes {
    pub fn seat_count(&self) -> i64 {
        self.sections.iter().map(|s| s.seats_total).sum()
    }

    /// Everything drawn: sections, areas and the stage.
    pub fn bounds(&self) -> Option<Bounds> {
        self.sections
            .iter()
            .map(|s| &s.outline)
            .chain(self.areas.iter().map(|a| &a.outline))
            .chain(std::iter::once(&self.stage))
            .filter_map(|points| Bounds::of(points.iter().copied()))
            .chain(self.labels.iter().filter_map(|l| {
                Bounds::of(std::iter::once(l.at).chain(l.outline.iter().flatten().copied()))
            }))
            .reduce(Bounds::union)
    }
}

/// The event's shapes; `viewer_hold` marks the sections holding its seats.
pub async fn shapes(
    client: &impl GenericClient,
    event_id: EventId,
    viewer_hold: Option<HoldId>,
) -> AppResult<MapShapes> {
    let sections = client
        .prepare_cached(
            "SELECT sec.id, sec.name, sec.outline,
                    min(s.x) AS min_x, min(s.y) AS min_y, max(s.x) AS max_x, max(s.y) AS max_y,
                    count(s.id) AS seats_total,
                    count(s.id) FILTER (WHERE s.status = 'AVAILABLE'
                                        OR (s.status = 'HELD' AND s.held_until < now())) AS seats_available,
                    (array_agg(t.price_cents ORDER BY t.price_cents, t.sort_order)
                       FILTER (WHERE s.status = 'AVAILABLE'
                               OR (s.status = 'HELD' AND s.held_until < now())))[1] AS from_cents,
                    (array_agg(t.code ORDER BY t.price_cents, t.sort_order)
                       FILTER (WHERE s.status = 'AVAILABLE'
                               OR (s.status = 'HELD' AND s.held_until < now())))[1] AS from_tier,
                    coalesce(array_agg(DISTINCT t.code)
                       FILTER (WHERE s.status = 'AVAILABLE'
                               OR (s.status = 'HELD' AND s.held_until < now())), '{}') AS free_tiers,
                    count(s.id) FILTER (WHERE s.hold_id = $2 AND s.held_until > now()) AS mine
               FROM sections sec
               LEFT JOIN seats s ON s.section_id = sec.id
               LEFT JOIN price_tiers t ON t.id = s.tier_id
              WHERE sec.event_id = $1
              GROUP BY sec.id
              ORDER BY sec.sort_order",
        )
        .await?;
    let rows = client.query(&sections, &[&event_id, &viewer_hold]).await?;
    let sections = rows
        .iter()
        .map(|row| {
            let stored: Option<Vec<f32>> = row.get("outline");
            let outline = match stored {
                Some(values) => geometry::unflatten(&values),
                None => {
                    let corner = |x: &str, y: &str| -> Option<Point> {
                        Some(Point::new(
                            row.get::<_, Option<f32>>(x)?,
                            row.get::<_, Option<f32>>(y)?,
                        ))
                    };
                    match (corner("min_x", "min_y"), corner("max_x", "max_y")) {
                        (Some(min), Some(max)) => {
                            let half = crate::domain::layout::SEAT_PITCH / 2.0;
                            Bounds {
                                min: Point::new(min.x - half, min.y - half),
                                max: Point::new(max.x + half, max.y + half),
                            }
                            .corners()
                        }
                        _ => Vec::new(),
                    }
                }
            };
            SectionShape {
                id: row.get("id"),
                name: row.get("name"),
                outline,
                seats_total: row.get("seats_total"),
                seats_available: row.get("seats_available"),
                from_cents: row.get("from_cents"),
                from_tier: row.get("from_tier"),
                free_tiers: row.get("free_tiers"),
                mine: row.get("mine"),
            }
        })
        .collect();
    let areas = client
        .prepare_cached(
            "SELECT id, name, outline FROM ga_areas
              WHERE event_id = $1 AND outline IS NOT NULL ORDER BY sort_order",
        )
        .await?;
    let areas = client
        .query(&areas, &[&event_id])
        .await?
        .iter()
        .map(|row| AreaShape {
            id: row.get("id"),
            name: row.get("name"),
            outline: geometry::unflatten(&row.get::<_, Vec<f32>>("outline")),
        })
        .collect();
    let event = client
        .prepare_cached("SELECT stage, labels FROM events WHERE id = $1")
        .await?;
    let event = client.query_opt(&event, &[&event_id]).await?;
    let stage: Option<Vec<f32>> = event.as_ref().and_then(|row| row.get(0));
    let labels: serde_json::Value = event
        .as_ref()
        .map_or(serde_json::Value::Null, |row| row.get(1));
    Ok(MapShapes {
        stage: stage.map(|s| geometry::unflatten(&s)).unwrap_or_default(),
        sections,
        areas,
        labels: labels_from_json(&labels),
    })
}

/// An event's labels column (written from a validated layout's
/// `labels_json`); an entry of another shape is skipped, not an error.
fn labels_from_json(value: &serde_json::Value) -> Vec<MapLabel> {
    let point = |pair: &serde_json::Value| {
        Some(Point::new(
            pair.get(0)?.as_f64()? as f32,
            pair.get(1)?.as_f64()? as f32,
        ))
    };
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|label| {
            Some(MapLabel {
                text: label.get("text")?.as_str()?.to_string(),
                at: Point::new(
                    label.get("x")?.as_f64()? as f32,
                    label.get("y")?.as_f64()? as f32,
                ),
                outline: label
                    .get("outline")
                    .and_then(|o| o.as_array())
                    .map(|pairs| pairs.iter().filter_map(point).collect()),
            })
        })
        .collect()
}
