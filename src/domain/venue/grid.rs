//! Layouts of events described in code (the demo, the tests' events):
//! sections of rows of N seats, placed as a file without positions would be.

use super::checks::{DraftSection, Venue, default_rank, finish};
use super::model::{LayoutError, SeatLayout, TierDef, VenueLayout};
use crate::domain::geometry::{self};
use crate::domain::layout::{EventSpec, SEAT_PITCH};

/// The layout of an event described in code: sections stacked as a file
/// without positions would have them, each row centred (and bent, if the
/// section has a curve).
pub fn from_grid(spec: &EventSpec) -> Result<VenueLayout, Vec<LayoutError>> {
    let drafts = spec
        .sections
        .iter()
        .enumerate()
        .map(|(s, section)| {
            let mut seats = Vec::new();
            for (r, row) in section.rows.iter().enumerate() {
                let slots = slots(row.seats, section.side_blocks);
                let places = geometry::row_positions(
                    slots.len() as u32 + aisles(row.seats, section.side_blocks),
                    r as u32,
                    SEAT_PITCH,
                    section.curve,
                );
                let width = places.len();
                for (p, slot) in slots.into_iter().enumerate() {
                    let place = places[slot];
                    seats.push(SeatLayout {
                        row: row.label.clone(),
                        label: (p + 1).to_string(),
                        row_index: r as i32,
                        // Across an aisle positions skip one, so no block of
                        // seats "together" spans it.
                        position: slot as i32,
                        x: place.x,
                        y: place.y,
                        rank: default_rank(s, r, slot, width),
                        tier: row.tier.clone(),
                        flags: row
                            .flags
                            .iter()
                            .filter(|(at, _)| *at as usize == p)
                            .map(|(_, flag)| *flag)
                            .collect(),
                        view_note: None,
                    });
                }
            }
            DraftSection {
                design: None,
                name: section.name.clone(),
                position: None,
                rotation: 0.0,
                outline: None,
                ranked: vec![false; seats.len()],
                seats,
            }
        })
        .collect();
    finish(
        Venue {
            labels: Vec::new(),
            name: spec.venue.clone(),
            time_zone: spec.time_zone.clone(),
            stage: None,
            tiers: spec
                .tiers
                .iter()
                .map(|t| TierDef {
                    code: t.code.clone(),
                    name: t.name.clone(),
                })
                .collect(),
            ga_areas: Vec::new(),
        },
        drafts,
        Default::default(),
    )
}

impl EventSpec {
    /// The venue this spec describes, placed as a layout file without
    /// positions would be: sections stacked, a stage in front.
    pub fn layout(&self) -> Result<VenueLayout, Vec<LayoutError>> {
        from_grid(self)
    }
}

/// How many aisles a row of `seats` has: two when both side blocks and a
/// centre fit, else none.
fn aisles(seats: u32, side_blocks: Option<u32>) -> u32 {
    match side_blocks {
        Some(side) if side > 0 && seats > 2 * side => 2,
        _ => 0,
    }
}

/// Each seat's place along the row, counting aisles as places.
fn slots(seats: u32, side_blocks: Option<u32>) -> Vec<usize> {
    let side = side_blocks.unwrap_or(0) as usize;
    let with_aisles = aisles(seats, side_blocks) > 0;
    (0..seats as usize)
        .map(|p| match with_aisles {
            false => p,
            true if p < side => p,
            true if p < seats as usize - side => p + 1,
            true => p + 2,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_blocks_put_an_aisle_place_between_them_and_the_centre() {
        assert_eq!(slots(10, Some(3)), [0, 1, 2, 4, 5, 6, 7, 9, 10, 11]);
        assert_eq!(aisles(10, Some(3)), 2);
        // Too short for two blocks and a centre: no aisles.
        assert_eq!(slots(6, Some(3)), [0, 1, 2, 3, 4, 5]);
        assert_eq!(slots(4, None), [0, 1, 2, 3]);
    }

    #[test]
    fn a_row_with_side_blocks_skips_a_position_and_a_pitch_at_each_aisle() {
        use crate::domain::layout::{RowSpec, SectionSpec, TierSpec};
        let spec = EventSpec {
            slug: None,
            name: "Aisles".into(),
            venue: "Hall".into(),
            starts_at: time::OffsetDateTime::UNIX_EPOCH,
            currency: "EUR".into(),
            time_zone: "UTC".into(),
            tiers: vec![TierSpec {
                code: "std".into(),
                name: "Standard".into(),
                price_cents: 1000,
            }],
            sections: vec![SectionSpec {
                name: "Stalls".into(),
                rows: vec![RowSpec {
                    label: "A".into(),
                    seats: 10,
                    tier: "std".into(),
                    ..Default::default()
                }],
                curve: None,
                side_blocks: Some(3),
            }],
        };
        let layout = from_grid(&spec).expect("a valid layout");
        let seats = &layout.sections[0].seats;
        let labels: Vec<&str> = seats.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
        let positions: Vec<i32> = seats.iter().map(|s| s.position).collect();
        assert_eq!(positions, [0, 1, 2, 4, 5, 6, 7, 9, 10, 11]);
        let gaps: Vec<f32> = seats.windows(2).map(|w| w[1].x - w[0].x).collect();
        for (i, gap) in gaps.iter().enumerate() {
            let expected = if i == 2 || i == 6 {
                2.0 * SEAT_PITCH
            } else {
                SEAT_PITCH
            };
            assert!(
                (gap - expected).abs() < 0.01,
                "between seats {} and {}: {gap}",
                i + 1,
                i + 2
            );
        }
    }
}
