//! A section too big to draw on one page (a flat floor of 100,000 seats,
//! say) is shown a part at a time: runs of whole rows within the budget of
//! one page, with links between the parts.

use crate::domain::seat::Seat;

/// The most seats one page of a section draws: a page of the arena's
/// biggest section (625) with room to spare, and what a whole venue of
/// `SEATMAP_OVERVIEW_ABOVE_SEATS` (2,000 by default) draws on one page.
pub const SECTION_PAGE_SEATS: usize = 2_000;

/// A part of a section too big to draw on one page: a run of whole rows
/// (a row longer than a page is cut into pieces), and the page's link.
pub struct SectionPart {
    pub href: String,
    /// "Rows A–F" (or "Row Q" for one row, or a row's piece).
    pub label: String,
    pub current: bool,
}

/// Cuts a section's seats in layout order (given by their rows' indexes)
/// into parts of at most `budget` seats, each part whole rows where a row
/// fits: the same budget of elements and bytes as a page of the arena's
/// sections, however big one section is.
pub fn section_parts(rows: &[i32], budget: usize) -> Vec<std::ops::Range<usize>> {
    let budget = budget.max(1);
    let mut parts: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    while start < rows.len() {
        let mut end = start;
        // Whole rows while they fit.
        while end < rows.len() {
            let row_end = rows[end..]
                .iter()
                .position(|row| *row != rows[end])
                .map_or(rows.len(), |n| end + n);
            if row_end - start <= budget {
                end = row_end;
            } else {
                break;
            }
        }
        // A row too long for a page alone is cut.
        if end == start {
            end = (start + budget).min(rows.len());
        }
        parts.push(start..end);
        start = end;
    }
    parts
}

/// The links between a big section's parts, the shown one marked.
pub fn part_links(
    seats: &[Seat],
    parts: &[std::ops::Range<usize>],
    current: usize,
    href: impl Fn(usize) -> String,
) -> Vec<SectionPart> {
    parts
        .iter()
        .enumerate()
        .map(|(i, range)| {
            let first = &seats[range.start].row_label;
            let last = &seats[range.end - 1].row_label;
            SectionPart {
                href: href(i),
                label: if first == last {
                    crate::i18n::t1("map-section-part-row", "row", first.as_str())
                } else {
                    crate::i18n::tw(
                        "map-section-part",
                        &[
                            ("first", first.as_str().into()),
                            ("last", last.as_str().into()),
                        ],
                    )
                },
                current: i == current,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::section_parts;

    fn rows(lengths: &[usize]) -> Vec<i32> {
        lengths
            .iter()
            .enumerate()
            .flat_map(|(r, &n)| std::iter::repeat_n(r as i32, n))
            .collect()
    }

    #[test]
    fn parts_are_whole_rows_within_the_budget_and_cover_every_seat() {
        let seats = rows(&[3, 3, 3, 5, 1]);
        let parts = section_parts(&seats, 6);
        assert_eq!(parts, vec![0..6, 6..9, 9..15]);
        // A row longer than the budget is cut into pieces; its last piece
        // is a part's start like any other.
        let seats = rows(&[2, 7, 2]);
        assert_eq!(section_parts(&seats, 3), vec![0..2, 2..5, 5..8, 8..11]);
        assert_eq!(section_parts(&rows(&[4]), 10), vec![0..4]);
        assert!(section_parts(&[], 10).is_empty());
    }
}
