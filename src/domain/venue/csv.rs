//! Layouts from CSV, for simple grids: `section,row,seat,x,y,tier,flags`.

use std::collections::{BTreeMap, HashMap};

use super::checks::{
    DEFAULT_TIME_ZONE, DraftSection, Venue, check_flags, default_rank, err, finish,
    local_coordinate_ok,
};
use super::model::{LayoutError, MAX_SEATS, Problems, SeatLayout, TierDef, VenueLayout};
use crate::domain::text::{self, MAX_CODE_CHARS, MAX_LABEL_CHARS, MAX_NAME_CHARS};

/// Parses and validates a CSV grid: a header `section,row,seat,x,y,tier,flags`
/// then one seat a line; flags are `|`-separated; tiers are named by the
/// codes used. Rows and seats keep the order they first appear in.
pub fn from_csv(name: &str, text: &str) -> Result<VenueLayout, Vec<LayoutError>> {
    let mut errors = Problems::default();
    // Spreadsheets save CSV with a byte-order mark; fields may be quoted
    // (a section named "Stalls, left"): the csv crate reads them as they
    // were written, as the exports are written by it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(::csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut records = reader.records().filter(|record| {
        record
            .as_ref()
            .map_or(true, |r| r.iter().any(|field| !field.is_empty()))
    });
    let line_of = |record: &::csv::StringRecord| record.position().map_or(0, |p| p.line());
    match records.next() {
        Some(Ok(header)) if normalise_header(&header) == "section,row,seat,x,y,tier,flags" => {}
        Some(Ok(header)) => errors.push(err(
            &format!("line {}", line_of(&header)),
            format!(
                "expected the header section,row,seat,x,y,tier,flags, found {}",
                text::quoted(&header.iter().collect::<Vec<_>>().join(","))
            ),
        )),
        Some(Err(problem)) => errors.push(err("line 1", unreadable(&problem))),
        None => errors.push(err("line 1", "the file is empty")),
    }
    let mut sections: Vec<DraftSection> = Vec::new();
    // Lookups by name, so that each line costs the same however long the
    // file is (a scan per line made a 100,000-seat file take 14 s).
    let mut section_index_of: HashMap<String, usize> = HashMap::new();
    let mut row_index_of: HashMap<(usize, String), usize> = HashMap::new();
    let mut rows_in_section: Vec<usize> = Vec::new();
    let mut seats_in_row: HashMap<(usize, usize), usize> = HashMap::new();
    let mut seen: HashMap<(String, String, String), u64> = HashMap::new();
    let mut tier_codes: Vec<String> = Vec::new();
    let mut seat_count = 0usize;
    for record in records {
        let record = match record {
            Ok(record) => record,
            Err(problem) => {
                let line = problem.position().map_or(0, |p| p.line());
                errors.push(err(&format!("line {line}"), unreadable(&problem)));
                continue;
            }
        };
        let line = line_of(&record);
        let at = format!("line {line}");
        if seat_count == MAX_SEATS {
            // Stop reading at once: the rest can only make it bigger.
            errors.push(err(
                &at,
                format!("more than {MAX_SEATS} seats; the rest of the file was not read"),
            ));
            break;
        }
        if errors.is_full() {
            errors.push(err(
                &at,
                "too many problems; the rest of the file was not read",
            ));
            break;
        }
        if record.len() != 7 {
            errors.push(err(
                &at,
                format!("expected 7 fields, found {}", record.len()),
            ));
            continue;
        }
        let field = |i: usize| record.get(i).unwrap_or("");
        let [section, row, seat, x, y, tier, flags] = [
            field(0),
            field(1),
            field(2),
            field(3),
            field(4),
            field(5),
            field(6),
        ];
        let mut line_ok = true;
        for (what, value, max) in [
            ("section", section, MAX_NAME_CHARS),
            ("row", row, MAX_LABEL_CHARS),
            ("seat", seat, MAX_LABEL_CHARS),
            ("tier", tier, MAX_CODE_CHARS),
        ] {
            if let Some(problem) = text::problem(what, value, max) {
                errors.push(err(&at, problem));
                line_ok = false;
            }
        }
        if !line_ok {
            continue;
        }
        let key = (section.to_string(), row.to_string(), seat.to_string());
        if let Some(first) = seen.get(&key) {
            errors.push(
                err(
                    &at,
                    format!("duplicate seat {section} {row} {seat} (first on line {first})"),
                )
                .of_kind(super::model::ProblemKind::DuplicateLabel),
            );
            continue;
        }
        seen.insert(key, line);
        let coordinate = |v: &str| v.parse::<f64>().ok().filter(|c| local_coordinate_ok(*c));
        let (x, y) = match (coordinate(x), coordinate(y)) {
            (Some(x), Some(y)) => (x as f32, y as f32),
            _ => {
                errors.push(err(
                    &at,
                    format!(
                        "bad coordinate ({}, {}): use numbers from -100000 to 100000",
                        text::shortened(x),
                        text::shortened(y)
                    ),
                ));
                (0.0, 0.0)
            }
        };
        let flag_names: Vec<String> = flags
            .split('|')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect();
        let flags = check_flags(&flag_names, &at, &mut errors);
        if !tier_codes.iter().any(|t| t == tier) {
            tier_codes.push(tier.to_string());
        }
        let section_index = *section_index_of
            .entry(section.to_string())
            .or_insert_with(|| {
                sections.push(DraftSection {
                    design: None,
                    name: section.to_string(),
                    position: None,
                    rotation: 0.0,
                    outline: None,
                    seats: Vec::new(),
                    ranked: Vec::new(),
                });
                rows_in_section.push(0);
                sections.len() - 1
            });
        let row_index = *row_index_of
            .entry((section_index, row.to_string()))
            .or_insert_with(|| {
                rows_in_section[section_index] += 1;
                rows_in_section[section_index] - 1
            });
        let position = seats_in_row.entry((section_index, row_index)).or_insert(0);
        sections[section_index].ranked.push(false);
        sections[section_index].seats.push(SeatLayout {
            row: row.to_string(),
            label: seat.to_string(),
            row_index: row_index as i32,
            position: *position as i32,
            x,
            y,
            rank: 0,
            tier: tier.to_string(),
            flags,
            view_note: None,
        });
        *position += 1;
        seat_count += 1;
    }
    // Ranks need each row's length, known only at the end. Seats are kept
    // row by row, as the JSON form has them, whatever order the lines came in.
    for (s, section) in sections.iter_mut().enumerate() {
        section
            .seats
            .sort_by_key(|seat| (seat.row_index, seat.position));
        let mut row_lengths: BTreeMap<i32, usize> = BTreeMap::new();
        for seat in &section.seats {
            *row_lengths.entry(seat.row_index).or_default() += 1;
        }
        for seat in &mut section.seats {
            seat.rank = default_rank(
                s,
                seat.row_index as usize,
                seat.position as usize,
                row_lengths[&seat.row_index],
            );
        }
    }
    let tiers = tier_codes
        .into_iter()
        .map(|code| TierDef {
            name: tier_name(&code),
            code,
        })
        .collect();
    finish(
        Venue {
            labels: Vec::new(),
            name: name.to_string(),
            time_zone: DEFAULT_TIME_ZONE.to_string(),
            stage: None,
            tiers,
            ga_areas: Vec::new(),
        },
        sections,
        errors,
    )
}

fn normalise_header(header: &::csv::StringRecord) -> String {
    header
        .iter()
        .map(|f| f.trim().to_lowercase())
        .collect::<Vec<_>>()
        .join(",")
}

/// A line the CSV reader could not read (not UTF-8, say), in words.
fn unreadable(problem: &::csv::Error) -> String {
    match problem.kind() {
        ::csv::ErrorKind::Utf8 { .. } => "the line is not UTF-8 text".into(),
        _ => "the line is not CSV".into(),
    }
}
/// A tier named only by its code in a CSV file gets a name people read:
/// "standard" is "Standard", "upper_circle" is "Upper circle".
fn tier_name(code: &str) -> String {
    let spaced = code.replace(['_', '-'], " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => spaced,
    }
}
