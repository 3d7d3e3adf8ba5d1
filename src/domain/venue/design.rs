//! A section's `design`: the designer's note of how it drew the section
//! (rows laid out from a few numbers, or a table with its chairs), so it
//! can lay the section out again. The seats are the truth; the note is
//! checked as the typed thing it is before a layout is stored, so it
//! never carries anything but its own fields and values.

use serde::Deserialize;

use super::model::LayoutError;

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum SectionDesign {
    Rows(RowsDesign),
    Table(TableDesign),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowsDesign {
    rows: Option<u32>,
    seats: Option<u32>,
    /// Seats in each row, front first (instead of `rows` × `seats`).
    #[serde(default)]
    counts: Vec<u32>,
    curve: Option<f64>,
    seat_spacing: Option<f64>,
    row_spacing: Option<f64>,
    stagger: Option<f64>,
    skew: Option<f64>,
    numbering: Option<Numbering>,
    start: Option<u32>,
    row_labels: Option<RowLabels>,
    first_row: Option<u32>,
    /// Gaps after these seats, counted from the left.
    #[serde(default)]
    aisles: Vec<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Numbering {
    Ltr,
    Rtl,
    OddEven,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum RowLabels {
    Letters,
    LettersNoIo,
    Numbers,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableDesign {
    shape: TableShape,
    chairs: u32,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum TableShape {
    Round,
    Rect,
}

/// What is wrong with a section's design, if anything: its shape (the
/// designer's kinds, fields and words only) and its numbers' ranges (the
/// designer's own form limits).
pub(super) fn problem(design: &serde_json::Value, at: &str) -> Option<LayoutError> {
    let refuse = |why: &str| Some(LayoutError::new(at, format!("design: {why}")));
    let design = match SectionDesign::deserialize(design) {
        Ok(design) => design,
        Err(err) => return refuse(&err.to_string()),
    };
    let within = |value: Option<f64>, low: f64, high: f64| {
        value.is_none_or(|v| v.is_finite() && (low..=high).contains(&v))
    };
    let whole =
        |value: Option<u32>, low: u32, high: u32| value.is_none_or(|v| (low..=high).contains(&v));
    match design {
        SectionDesign::Rows(rows) => {
            let _ = (rows.numbering, rows.row_labels);
            if !(whole(rows.rows, 1, 200)
                && whole(rows.seats, 1, 500)
                && rows.counts.len() <= 200
                && rows.counts.iter().all(|c| (1..=500).contains(c))
                && rows.aisles.len() <= 500
                && rows.aisles.iter().all(|a| *a <= 500)
                && within(rows.curve, 0.0, 100_000.0)
                && within(rows.seat_spacing, 1.0, 1_000.0)
                && within(rows.row_spacing, 1.0, 1_000.0)
                && within(rows.stagger, 0.0, 1.0)
                && within(rows.skew, -60.0, 60.0)
                && whole(rows.start, 0, 9_999)
                && whole(rows.first_row, 1, 500))
            {
                return refuse("a number out of the designer's range");
            }
        }
        SectionDesign::Table(table) => {
            let _ = table.shape;
            if !(1..=40).contains(&table.chairs) {
                return refuse("a table has 1 to 40 chairs");
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn only_the_designers_own_notes_pass() {
        let good = [
            json!({"kind": "rows", "rows": 3, "seats": 10, "numbering": "odd_even",
                   "row_labels": "letters_no_io", "stagger": 0.5, "aisles": [4]}),
            json!({"kind": "rows"}),
            json!({"kind": "table", "shape": "rect", "chairs": 8}),
        ];
        for design in good {
            assert!(super::problem(&design, "d").is_none(), "{design}");
        }
        let bad = [
            json!({"kind": "rows", "rows": "1\"><img src=x onerror=alert(1)>"}),
            json!({"kind": "rows", "numbering": "<b>"}),
            json!({"kind": "rows", "extra": 1}),
            json!({"kind": "rows", "rows": 0}),
            json!({"kind": "rows", "skew": 61}),
            json!({"kind": "table", "shape": "round", "chairs": 41}),
            json!({"kind": "table", "shape": "round", "chairs": 6, "x": 1}),
            json!({"kind": "<svg>"}),
            json!({"rows": 3}),
            json!([1]),
        ];
        for design in bad {
            let problem = super::problem(&design, "sections[0].design");
            assert!(problem.is_some(), "{design}");
            assert!(problem.unwrap().problem.starts_with("design: "));
        }
    }
}
