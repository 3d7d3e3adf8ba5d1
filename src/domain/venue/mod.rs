//! Venue layouts from files: JSON (sections of rows of seats, general-
//! admission areas; schema in static/venue-layout.schema.json) or CSV for
//! simple grids (`section,row,seat,x,y,tier,flags`). A file is validated
//! whole before anything uses it, and every problem is reported with where
//! it is (a JSON path or a CSV line), not just the first.

mod checks;
pub mod csv;
mod design;
pub mod grid;
pub mod json;
pub mod model;
#[cfg(test)]
mod tests;

pub use checks::DEFAULT_TIME_ZONE;
pub use csv::from_csv;
pub use grid::from_grid;
pub use json::from_json;
pub use model::{
    GaArea, LayoutError, MapLabel, Place, ProblemKind, SeatLayout, SectionLayout, TierDef,
    VenueLayout,
};

/// Reads a layout file of either form: CSV when its name ends in `.csv`
/// (the venue is then named after the file), JSON otherwise.
pub fn from_file(file_name: &str, text: &str) -> Result<VenueLayout, Vec<LayoutError>> {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    match base
        .strip_suffix(".csv")
        .or_else(|| base.strip_suffix(".CSV"))
    {
        Some(stem) => from_csv(&venue_name_from_file(stem), text),
        None => from_json(text),
    }
}

/// A parsed layout, held to what every layout about to be stored must also
/// pass (see `checks::placement_problems`): imports, saves and `venue
/// check` go through this; reading a stored venue, or a file to open in
/// the designer, does not.
pub fn for_saving(
    parsed: Result<VenueLayout, Vec<LayoutError>>,
) -> Result<VenueLayout, Vec<LayoutError>> {
    let layout = parsed?;
    let problems = checks::placement_problems(&layout);
    if !problems.is_empty() {
        return Err(problems);
    }
    // What is stored is the canonical form, everything placed (and moved
    // right or down off the negative side): it must read back, or the
    // venue could be saved and never opened again.
    if let Err(problems) = from_json(&layout.to_json().to_string()) {
        return Err(problems
            .into_iter()
            .map(|problem| {
                LayoutError::new(
                    problem.at,
                    format!(
                        "once placed (everything moved right or down so nothing is left of \
                         or above 0), {}",
                        problem.problem
                    ),
                )
                .of_kind(problem.kind)
                .at_place(problem.place)
            })
            .collect());
    }
    Ok(layout)
}

/// "arena-20000" → "Arena 20000".
fn venue_name_from_file(stem: &str) -> String {
    stem.split(['-', '_', ' '])
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The example layouts in static/layouts, shipped inside the binary: the
/// demo seeds the arena, benchmarks use the arena and the hall.
pub mod examples {
    use super::{VenueLayout, from_json};

    pub const THEATRE: &str = include_str!("../../../static/layouts/theatre-300.json");
    pub const CONCERT_HALL: &str = include_str!("../../../static/layouts/concert-hall-2000.json");
    pub const ARENA: &str = include_str!("../../../static/layouts/arena-20000.json");

    fn shipped(text: &str) -> anyhow::Result<VenueLayout> {
        from_json(text).map_err(|errors| anyhow::anyhow!("a shipped layout is invalid: {errors:?}"))
    }

    pub fn arena() -> anyhow::Result<VenueLayout> {
        shipped(ARENA)
    }

    pub fn concert_hall() -> anyhow::Result<VenueLayout> {
        shipped(CONCERT_HALL)
    }
}
