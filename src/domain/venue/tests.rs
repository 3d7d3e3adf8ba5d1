use std::collections::HashMap;

use crate::domain::layout::{Flag, SEAT_PITCH};

use super::*;

const SMALL: &str = r#"{
  "name": "Little Hall",
  "tiers": [{"code": "std", "name": "Standard"}, {"code": "box", "name": "Box"}],
  "sections": [
    {"name": "Stalls", "rows": [
      {"label": "A", "seats": [
        {"label": "1", "tier": "std", "flags": ["wheelchair"]},
        {"label": "2", "tier": "std"},
        {"label": "3", "tier": "std", "rank": 0}
      ]},
      {"label": "B", "seats": [{"label": "1", "tier": "std", "x": 15.5, "y": 40}]}
    ]},
    {"name": "Box 1", "rows": [{"label": "A", "seats": [{"label": "1", "tier": "box"}]}]}
  ],
  "ga_areas": [{"name": "Standing", "tier": "std", "capacity": 120}]
}"#;

#[test]
fn a_good_json_layout_is_read_whole() {
    let layout = from_json(SMALL).unwrap();
    assert_eq!(layout.name, "Little Hall");
    assert_eq!(layout.seat_count(), 5);
    assert_eq!(layout.ga_capacity(), 120);
    let stalls = &layout.sections[0];
    assert_eq!(stalls.seats[0].flags, vec![Flag::Wheelchair]);
    assert_eq!(stalls.seats[2].rank, 0, "an explicit rank overrides");
    assert_eq!(stalls.seats[1].rank, 0, "centre of a 3-seat row");
    assert_eq!((stalls.seats[3].x, stalls.seats[3].y), (15.5, 40.0));
    assert_eq!(
        stalls.seats[1].x, SEAT_PITCH,
        "computed from the seat's place"
    );
}

#[test]
fn every_problem_is_reported_with_its_path() {
    let bad = r#"{
      "name": "Broken",
      "tiers": [{"code": "std", "name": "Standard"}],
      "sections": [{"name": "Stalls", "rows": [{"label": "A", "seats": [
        {"label": "1", "tier": "std"},
        {"label": "1", "tier": "std"},
        {"label": "2", "tier": "gold"},
        {"label": "3", "tier": "std", "x": -500000, "y": 10},
        {"label": "4", "tier": "std", "x": 3},
        {"label": "5", "tier": "std", "flags": ["vip"]}
      ]}]}],
      "ga_areas": [{"name": "Stalls", "tier": "std", "capacity": 0}]
    }"#;
    let errors = from_json(bad).unwrap_err();
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    let expect = [
        "sections[0].rows[0].seats[1]: duplicate seat Stalls A 1",
        "sections[0].rows[0].seats[2]: unknown tier \"gold\"",
        "sections[0].rows[0].seats[3]: bad coordinate (-500000, 10)",
        "sections[0].rows[0].seats[4]: give both x and y, or neither",
        "sections[0].rows[0].seats[5]: unknown flag \"vip\"",
        "ga_areas[0]: \"Stalls\" is already a section or area",
        "ga_areas[0]: bad capacity 0",
    ];
    for expected in expect {
        assert!(
            text.iter().any(|t| t.starts_with(expected)),
            "missing {expected:?} in {text:#?}"
        );
    }
    assert_eq!(text.len(), expect.len(), "{text:#?}");
}

#[test]
fn malformed_json_says_where() {
    let errors = from_json("{\n  \"name\": \"x\",\n  \"tiers\": [,]\n}").unwrap_err();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].at.starts_with("line 3"), "{}", errors[0]);
    let errors = from_json(r#"{"name": "x", "tiers": [], "seats": []}"#).unwrap_err();
    assert!(
        errors[0].problem.contains("unknown field `seats`"),
        "{}",
        errors[0]
    );
}

#[test]
fn csv_grids_are_read_in_order_with_ranks_and_flags() {
    let csv = "section,row,seat,x,y,tier,flags\n\
               Stalls,A,1,0,0,std,wheelchair|companion\n\
               Stalls,A,2,30,0,std,\n\
               Stalls,A,3,60,0,std,\n\
               Stalls,B,1,0,30,vip,\n";
    let layout = from_csv("Grid Hall", csv).unwrap();
    assert_eq!(layout.seat_count(), 4);
    assert_eq!(
        layout
            .tiers
            .iter()
            .map(|t| t.code.as_str())
            .collect::<Vec<_>>(),
        ["std", "vip"]
    );
    let seats = &layout.sections[0].seats;
    assert_eq!(seats[0].flags, vec![Flag::Wheelchair, Flag::Companion]);
    assert_eq!((seats[3].row_index, seats[3].position), (1, 0));
    assert!(
        seats[1].rank < seats[0].rank,
        "the centre of row A ranks best"
    );
    assert!(seats[2].rank < seats[3].rank, "row A beats row B");
}

#[test]
fn the_shipped_example_layouts_are_valid_and_as_described() {
    let theatre = from_json(examples::THEATRE).unwrap();
    assert_eq!(theatre.seat_count(), 300);
    assert!(theatre.sections.iter().any(|s| s.name == "Balcony"));
    assert_eq!(theatre.time_zone, "Europe/London");
    let hall = from_json(examples::CONCERT_HALL).unwrap();
    assert_eq!(hall.seat_count() as u64 + hall.ga_capacity(), 2000);
    assert_eq!(hall.ga_areas.len(), 1);
    assert!(hall.ga_areas[0].outline.is_some(), "the floor is drawn");
    let arena = from_json(examples::ARENA).unwrap();
    assert_eq!(arena.seat_count(), 20_000);
    assert!(
        (24..=40).contains(&arena.sections.len()),
        "{}",
        arena.sections.len()
    );
    assert!(arena.tiers.len() >= 4);
    assert!(
        arena
            .sections
            .iter()
            .flat_map(|s| &s.seats)
            .any(|s| s.flags.contains(&Flag::Wheelchair))
    );
    // No two seats of the venue overlap: every pair of centres is
    // most of a pitch apart (checked on a grid of cells, not pairwise).
    for layout in [&theatre, &hall, &arena] {
        let seats = layout.seat_specs();
        let cell = SEAT_PITCH;
        let mut grid: HashMap<(i64, i64), Vec<(f32, f32)>> = HashMap::new();
        for s in &seats {
            grid.entry(((s.x / cell) as i64, (s.y / cell) as i64))
                .or_default()
                .push((s.x, s.y));
        }
        for s in &seats {
            let (cx, cy) = ((s.x / cell) as i64, (s.y / cell) as i64);
            let near = (cx - 1..=cx + 1)
                .flat_map(|x| (cy - 1..=cy + 1).map(move |y| (x, y)))
                .filter_map(|key| grid.get(&key))
                .flatten()
                .filter(|(x, y)| ((x - s.x).powi(2) + (y - s.y).powi(2)).sqrt() < 0.85 * SEAT_PITCH)
                .count();
            assert_eq!(
                near, 1,
                "{}: a seat overlaps {} {} {}",
                layout.name, s.section_index, s.row_label, s.seat_label
            );
        }
    }
}

#[test]
fn the_canonical_json_reads_back_to_the_same_layout() {
    let csv = "section,row,seat,x,y,tier,flags\n\
               Stalls,A,1,0,0,std,wheelchair\n\
               Stalls,B,1,0,30,vip,\n\
               Stalls,A,2,30.25,0,std,restricted_view|companion\n";
    // Seats from x = 30 on, in two sections of different widths: the
    // stacked sections' origins land left of the venue's (once stored
    // as positions the JSON refused, and the venue's page was a 500).
    let offset = "section,row,seat,x,y,tier,flags\n\
                  Wide,A,1,30,30,std,\nWide,A,2,60,30,std,\nWide,A,3,90,30,std,\n\
                  Narrow,A,1,30,30,std,\n";
    for layout in [
        from_json(SMALL).unwrap(),
        from_csv("Grid Hall", csv).unwrap(),
        from_csv("Offset Hall", offset).unwrap(),
        from_json(examples::THEATRE).unwrap(),
        from_json(examples::ARENA).unwrap(),
    ] {
        let text = layout.to_json().to_string();
        assert_eq!(from_json(&text).unwrap(), layout);
    }
    let grid = from_csv("Grid Hall", csv).unwrap();
    let rows: Vec<(&str, &str)> = grid.sections[0]
        .seats
        .iter()
        .map(|s| (s.row.as_str(), s.label.as_str()))
        .collect();
    assert_eq!(rows, [("A", "1"), ("A", "2"), ("B", "1")]);
}

#[test]
fn files_are_read_by_their_extension() {
    let csv = "section,row,seat,x,y,tier,flags\nFloor,A,1,0,0,std,\n";
    let layout = from_file("uploads/big-top_arena.csv", csv).unwrap();
    assert_eq!(layout.name, "Big Top Arena");
    assert_eq!(from_file("hall.json", SMALL).unwrap().name, "Little Hall");
    assert!(from_file("hall.json", csv).is_err());
}

#[test]
fn csv_problems_name_their_line() {
    let csv = "section,row,seat,x,y,tier,flags\n\
               Stalls,A,1,0,0,std,\n\
               Stalls,A,1,30,0,std,\n\
               Stalls,A,2,abc,0,std,\n\
               Stalls,A,3,0,0,std\n\
               Stalls,A,4,0,0,std,lounge\n";
    let text: Vec<String> = from_csv("x", csv)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        text,
        vec![
            "line 3: duplicate seat Stalls A 1 (first on line 2)".to_string(),
            "line 4: bad coordinate (abc, 0): use numbers from -100000 to 100000".to_string(),
            "line 5: expected 7 fields, found 6".to_string(),
            "line 6: unknown flag \"lounge\": use wheelchair, companion, restricted_view, aisle, step_free, hearing_loop, lift_up_armrest, extra_legroom"
                .to_string(),
        ]
    );
    let wrong_header = from_csv("x", "a,b,c\n").unwrap_err();
    assert!(
        wrong_header[0]
            .to_string()
            .starts_with("line 1: expected the header")
    );
}

#[test]
fn labels_are_checked_kept_and_moved_with_the_house() {
    let json = r#"{"name": "Labelled", "tiers": [{"code": "a", "name": "A"}],
        "sections": [{"name": "S", "position": {"x": -60, "y": 100},
                      "rows": [{"label": "A", "count": 3, "tier": "a"}]}],
        "labels": [{"text": "Bar", "x": 10, "y": 400},
                   {"text": "Exit", "x": 200, "y": 20,
                    "outline": [[180, 10], [220, 10], [220, 30], [180, 30]]}]}"#;
    let layout = from_json(json).unwrap();
    assert_eq!(layout.labels.len(), 2);
    // The section reached left of the origin, so the whole house moved
    // right; the labels with it.
    let shift = layout.labels[0].at.x - 10.0;
    assert!(shift > 0.0, "{shift}");
    assert_eq!(
        layout.labels[1].outline.as_ref().unwrap()[0].x,
        180.0 + shift
    );
    let again = from_json(&layout.to_json().to_string()).unwrap();
    assert_eq!(again, layout);

    let bad = r#"{"name": "L", "tiers": [{"code": "a", "name": "A"}],
        "sections": [{"name": "S", "rows": [{"label": "A", "count": 1, "tier": "a"}]}],
        "labels": [{"text": " ", "x": 1, "y": 1}, {"text": "Far", "x": -5, "y": 1}]}"#;
    let problems: Vec<String> = from_json(bad)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            "labels[0]: a label needs text",
            "labels[1]: bad point (-5, 1): use 0 to 100000"
        ]
    );
}

#[test]
fn saving_checks_seats_apart_and_companions_but_reading_does_not() {
    let json = r#"{"name": "Tight", "tiers": [{"code": "a", "name": "A"}],
        "sections": [{"name": "S", "rows": [{"label": "A", "seats": [
            {"label": "1", "tier": "a", "x": 0, "y": 0},
            {"label": "2", "tier": "a", "x": 5, "y": 0, "flags": ["companion"]}]}]}]}"#;
    assert!(from_json(json).is_ok(), "a stored venue still reads");
    let problems = super::for_saving(from_json(json)).unwrap_err();
    let kinds: Vec<_> = problems.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            super::ProblemKind::Overlap,
            super::ProblemKind::CompanionAlone
        ]
    );
    assert_eq!(problems[1].place.seat.as_deref(), Some("2"));
}

#[test]
fn a_venue_of_standing_areas_only_reads_back_from_its_canonical_form() {
    let json = r#"{"name": "Field", "tiers": [{"code": "ga", "name": "Standing"}],
        "ga_areas": [{"name": "Field", "tier": "ga", "capacity": 5000}]}"#;
    let layout = from_json(json).unwrap();
    assert!(layout.stage.is_empty());
    assert_eq!(from_json(&layout.to_json().to_string()).unwrap(), layout);
}

#[test]
fn the_published_schema_lists_exactly_the_seat_attributes_there_are() {
    use crate::domain::layout::Flag;
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../static/venue-layout.schema.json")).unwrap();
    let mut enums = Vec::new();
    fn collect(value: &serde_json::Value, out: &mut Vec<Vec<String>>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::Array(items)) = map.get("enum")
                    && items.iter().any(|i| i == "wheelchair")
                {
                    out.push(
                        items
                            .iter()
                            .filter_map(|i| i.as_str().map(String::from))
                            .collect(),
                    );
                }
                map.values().for_each(|v| collect(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    collect(&schema, &mut enums);
    let ours: Vec<String> = Flag::ALL.iter().map(|f| f.as_str().to_string()).collect();
    assert_eq!(enums.len(), 2, "seat flags and a count row's flags");
    for listed in enums {
        assert_eq!(listed, ours);
    }
}

#[test]
fn a_restricted_view_may_say_why_and_only_a_restricted_view_may() {
    let good = r#"{
      "name": "Hall",
      "tiers": [{"code": "std", "name": "Standard"}],
      "sections": [{"name": "Circle", "rows": [
        {"label": "A", "seats": [
          {"label": "1", "tier": "std", "flags": ["restricted_view"], "view_note": " Pillar "},
          {"label": "2", "tier": "std"}
        ]},
        {"label": "B", "count": 3, "tier": "std",
         "flags": {"3": ["restricted_view"]}, "view_notes": {"3": "Safety rail"}}
      ]}]
    }"#;
    let layout = from_json(good).unwrap();
    let seats = &layout.sections[0].seats;
    assert_eq!(seats[0].view_note.as_deref(), Some("Pillar"));
    assert_eq!(seats[1].view_note, None);
    assert_eq!(seats[4].view_note.as_deref(), Some("Safety rail"));
    // The canonical form keeps it, and reads back the same.
    let again = from_json(&layout.to_json().to_string()).unwrap();
    assert_eq!(again.sections[0].seats, layout.sections[0].seats);

    let bad = r#"{
      "name": "Hall",
      "tiers": [{"code": "std", "name": "Standard"}],
      "sections": [{"name": "Circle", "rows": [
        {"label": "A", "seats": [
          {"label": "1", "tier": "std", "view_note": "Pillar"},
          {"label": "2", "tier": "std", "flags": ["restricted_view"], "view_note": "a\u0000b"}
        ]},
        {"label": "B", "count": 2, "tier": "std", "view_notes": {"9": "Rail"}}
      ]}]
    }"#;
    let problems: Vec<String> = from_json(bad)
        .unwrap_err()
        .iter()
        .map(|e| e.problem.clone())
        .collect();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("for a seat marked restricted_view")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("plain text of 1 to 120")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("view note for seat \"9\"")),
        "{problems:?}"
    );
}
