//! Events described in code as sections of rows of N seats (the demo, and
//! the tests' events), and the flat seat records every event is stored as.

use time::OffsetDateTime;

/// Distance between seat centres, in the map's pixel units.
pub const SEAT_PITCH: f32 = 30.0;

#[derive(Debug, Clone)]
pub struct TierSpec {
    pub code: String,
    pub name: String,
    pub price_cents: i32,
}

#[derive(Debug, Clone, Default)]
pub struct RowSpec {
    pub label: String,
    pub seats: u32,
    pub tier: String,
    /// Accessible-seat flags by 0-based position in the row.
    pub flags: Vec<(u32, Flag)>,
}

/// Seat attributes, as the database stores them: a closed set (a CHECK
/// of the seats table), so that filters and their words stay whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flag {
    /// A space for a wheelchair; held back from general best available.
    Wheelchair,
    /// Beside a wheelchair space, for the person with its user; held back
    /// from general best available too.
    Companion,
    RestrictedView,
    /// On an aisle: next to a gangway, easy to reach and leave.
    Aisle,
    /// Reached without steps.
    StepFree,
    /// Covered by an induction (hearing) loop.
    HearingLoop,
    /// An armrest that lifts, for moving across from a wheelchair.
    LiftUpArmrest,
    ExtraLegroom,
}

impl Flag {
    pub const ALL: [Flag; 8] = [
        Flag::Wheelchair,
        Flag::Companion,
        Flag::RestrictedView,
        Flag::Aisle,
        Flag::StepFree,
        Flag::HearingLoop,
        Flag::LiftUpArmrest,
        Flag::ExtraLegroom,
    ];

    /// Held back from general best available until the event releases
    /// them.
    pub fn is_held_back(self) -> bool {
        matches!(self, Flag::Wheelchair | Flag::Companion)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Flag::Wheelchair => "wheelchair",
            Flag::Companion => "companion",
            Flag::RestrictedView => "restricted_view",
            Flag::Aisle => "aisle",
            Flag::StepFree => "step_free",
            Flag::HearingLoop => "hearing_loop",
            Flag::LiftUpArmrest => "lift_up_armrest",
            Flag::ExtraLegroom => "extra_legroom",
        }
    }

    pub fn from_db(value: &str) -> Option<Flag> {
        Flag::ALL.into_iter().find(|f| f.as_str() == value)
    }
}

#[derive(Debug, Clone, Default)]
pub struct SectionSpec {
    pub name: String,
    /// Front row first.
    pub rows: Vec<RowSpec>,
    /// Bends the rows around a point this far in front of the front row.
    pub curve: Option<f32>,
    /// Aisles: this many seats at each end of a row form a side block,
    /// with a one-seat aisle between it and the centre (rows too short
    /// for both blocks and a centre have none).
    pub side_blocks: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct EventSpec {
    /// A stable handle for idempotent seeding; `None` for ordinary events.
    pub slug: Option<String>,
    pub name: String,
    pub venue: String,
    pub starts_at: OffsetDateTime,
    /// ISO 4217 code of the prices.
    pub currency: String,
    /// IANA zone of the venue.
    pub time_zone: String,
    pub tiers: Vec<TierSpec>,
    pub sections: Vec<SectionSpec>,
}

/// A seat as an event stores it: its centre in venue coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatSpec {
    pub section_index: usize,
    pub tier: String,
    pub row_label: String,
    pub seat_label: String,
    pub row_index: i32,
    pub position: i32,
    pub x: f32,
    pub y: f32,
    pub rank: i32,
    pub flags: Vec<Flag>,
    /// Why the view is restricted, for a restricted-view seat.
    pub view_note: Option<String>,
}

/// The longest reason for a restricted view ("Pillar on the left").
pub const MAX_VIEW_NOTE_CHARS: usize = 120;

/// Row labels A, B, … Z, AA, AB, …
pub fn row_label(index: usize) -> String {
    let mut label = String::new();
    let mut n = index + 1;
    while n > 0 {
        let rem = (n - 1) % 26;
        label.insert(0, (b'A' + rem as u8) as char);
        n = (n - 1) / 26;
    }
    label
}

/// The demo venue: three sections, three price tiers, 1,038 seats.
pub fn demo_event(starts_at: OffsetDateTime) -> EventSpec {
    let rows =
        |count: usize, seats: &dyn Fn(usize) -> u32, tier: &dyn Fn(usize) -> &'static str| {
            (0..count)
                .map(|i| RowSpec {
                    label: row_label(i),
                    seats: seats(i),
                    tier: tier(i).to_string(),
                    flags: Vec::new(),
                })
                .collect::<Vec<_>>()
        };
    // Wheelchair spaces with companion seats at both ends of the Orchestra's
    // back row, and pillars in the Balcony's front corners.
    let mut orchestra = rows(20, &|_| 30, &|i| if i < 6 { "premium" } else { "standard" });
    orchestra[19].flags = vec![
        (0, Flag::Wheelchair),
        (1, Flag::Wheelchair),
        (2, Flag::Companion),
        (27, Flag::Companion),
        (28, Flag::Wheelchair),
        (29, Flag::Wheelchair),
    ];
    let mut balcony = rows(8, &|_| 26, &|_| "value");
    balcony[0].flags = [0, 1, 2, 23, 24, 25]
        .into_iter()
        .map(|p| (p, Flag::RestrictedView))
        .collect();
    EventSpec {
        slug: Some("demo".into()),
        name: "Seatmap Philharmonic: Demo Night".into(),
        venue: "Demo Hall".into(),
        starts_at,
        currency: "EUR".into(),
        time_zone: "Europe/Paris".into(),
        tiers: vec![
            TierSpec {
                code: "premium".into(),
                name: "Premium".into(),
                price_cents: 8500,
            },
            TierSpec {
                code: "standard".into(),
                name: "Standard".into(),
                price_cents: 5500,
            },
            TierSpec {
                code: "value".into(),
                name: "Value".into(),
                price_cents: 3000,
            },
        ],
        sections: vec![
            SectionSpec {
                name: "Orchestra".into(),
                rows: orchestra,
                curve: Some(1_400.0),
                side_blocks: Some(7),
            },
            SectionSpec {
                name: "Mezzanine".into(),
                rows: rows(10, &|i| 22 + 2 * (i as u32 % 2), &|i| {
                    if i < 4 { "premium" } else { "standard" }
                }),
                curve: Some(1_400.0),
                side_blocks: Some(5),
            },
            SectionSpec {
                name: "Balcony".into(),
                rows: balcony,
                curve: Some(1_400.0),
                side_blocks: Some(6),
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_labels_run_past_z() {
        assert_eq!(row_label(0), "A");
        assert_eq!(row_label(25), "Z");
        assert_eq!(row_label(26), "AA");
        assert_eq!(row_label(27), "AB");
    }

    #[test]
    fn demo_meets_the_documented_minimums() {
        let spec = demo_event(OffsetDateTime::UNIX_EPOCH);
        let seats = spec.layout().unwrap().seat_specs();
        assert!(seats.len() >= 1_000, "{} seats", seats.len());
        assert!(spec.sections.len() >= 3);
        assert!(spec.tiers.len() >= 2);
        let tiers_used: std::collections::BTreeSet<_> = seats.iter().map(|s| &s.tier).collect();
        assert_eq!(tiers_used.len(), spec.tiers.len());
    }

    #[test]
    fn centre_front_seat_ranks_best_and_rows_are_centred() {
        let spec = EventSpec {
            slug: None,
            name: "t".into(),
            venue: "v".into(),
            starts_at: OffsetDateTime::UNIX_EPOCH,
            currency: "EUR".into(),
            time_zone: "UTC".into(),
            tiers: vec![TierSpec {
                code: "t".into(),
                name: "T".into(),
                price_cents: 100,
            }],
            sections: vec![SectionSpec {
                name: "S".into(),
                rows: vec![
                    RowSpec {
                        label: "A".into(),
                        seats: 3,
                        tier: "t".into(),
                        ..Default::default()
                    },
                    RowSpec {
                        label: "B".into(),
                        seats: 5,
                        tier: "t".into(),
                        ..Default::default()
                    },
                ],
                curve: None,
                side_blocks: None,
            }],
        };
        let seats = spec.layout().unwrap().seat_specs();
        let best = seats.iter().min_by_key(|s| s.rank).unwrap();
        assert_eq!(
            (best.row_label.as_str(), best.seat_label.as_str()),
            ("A", "2")
        );
        // Row A (3 seats) is centred over row B (5 seats).
        assert_eq!(seats[0].x, seats[4].x);
        assert_eq!(seats[1].x, seats[5].x);
        // Every front-row seat beats every second-row seat.
        let worst_a = seats
            .iter()
            .filter(|s| s.row_index == 0)
            .map(|s| s.rank)
            .max()
            .unwrap();
        let best_b = seats
            .iter()
            .filter(|s| s.row_index == 1)
            .map(|s| s.rank)
            .min()
            .unwrap();
        assert!(worst_a < best_b);
    }
}
