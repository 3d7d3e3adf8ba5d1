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
                let places =
                    geometry::row_positions(row.seats, r as u32, SEAT_PITCH, section.curve);
                for (p, place) in places.into_iter().enumerate() {
                    seats.push(SeatLayout {
                        row: row.label.clone(),
                        label: (p + 1).to_string(),
                        row_index: r as i32,
                        position: p as i32,
                        x: place.x,
                        y: place.y,
                        rank: default_rank(s, r, p, row.seats as usize),
                        tier: row.tier.clone(),
                        flags: row
                            .flags
                            .iter()
                            .filter(|(at, _)| *at as usize == p)
                            .map(|(_, flag)| *flag)
                            .collect(),
                    });
                }
            }
            DraftSection {
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
        Vec::new(),
    )
}

impl EventSpec {
    /// The venue this spec describes, placed as a layout file without
    /// positions would be: sections stacked, a stage in front.
    pub fn layout(&self) -> Result<VenueLayout, Vec<LayoutError>> {
        from_grid(self)
    }
}
