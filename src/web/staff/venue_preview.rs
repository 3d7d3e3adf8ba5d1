//! A venue as a buyer's map shows it, before any event is made of it: the
//! designer's "Preview as a buyer". The same renderer as the event page
//! (`web::map`), fed from the venue's latest layout with every seat free;
//! nothing on it can be held.

use askama::Template;
use axum::extract::State;
use axum::response::{IntoResponse, Response};

use crate::db;
use crate::db::events::Tier;
use crate::db::map::{AreaShape, MapShapes, SectionShape};
use crate::domain::geometry;
use crate::domain::ids::{AreaId, SeatId, SectionId, VenueId};
use crate::domain::seat::Seat;
use crate::domain::seat::SeatState;
use crate::domain::venue::VenueLayout;
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::{Staff, floor::Manager};
use crate::web::extract::{IdPath, QueryInput};
use crate::web::map::{self, PriceFilter, SeatCanvas};
use crate::web::map_overview::{self, Overview};
use crate::web::render::render;
use crate::web::seat_view::{StatusLegend, TierLegend};
use crate::web::state::AppState;

#[derive(Template)]
#[template(path = "staff/venue_preview.html")]
struct PreviewPage {
    staff_bar: crate::web::auth::StaffBar,
    id: VenueId,
    name: String,
    version: i32,
    canvas: Option<SeatCanvas>,
    overview: Option<Overview>,
    section_name: Option<String>,
    filter: PriceFilter,
    tiers: Vec<TierLegend>,
    statuses: Vec<StatusLegend>,
    oob: bool,
}

#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct PreviewQuery {
    /// A big venue's section (its place in the layout, from 1).
    section: Option<i64>,
}

pub(crate) async fn preview(
    State(state): State<AppState>,
    IdPath(venue_id): IdPath<VenueId>,
    QueryInput(query): QueryInput<PreviewQuery>,
    staff: Staff<Manager>,
) -> AppResult<Response> {
    let (layout, version) = db::venues::latest(&state.pool.get().await?, venue_id).await?;
    let (seats, tiers, shapes) = as_event(&layout);
    let filter = PriceFilter::new(&tiers, None, None);
    let big = shapes.seat_count() > i64::from(state.config.overview_above_seats);
    let chosen = match query.section.filter(|_| big) {
        Some(id) => Some(
            shapes
                .sections
                .iter()
                .find(|s| s.id == SectionId(id))
                .ok_or(AppError::NotFound(Missing::Section))?,
        ),
        None => None,
    };
    let canvas = match (big, chosen) {
        (false, _) => Some(map::seat_canvas(&seats, &tiers, &shapes, true)),
        (true, Some(section)) => {
            let in_section: Vec<Seat> = seats
                .iter()
                .filter(|s| s.section_id == section.id)
                .cloned()
                .collect();
            Some(map::seat_canvas(&in_section, &tiers, &shapes, false))
        }
        (true, None) => None,
    };
    let overview = big.then(|| {
        let page = format!("/staff/venues/{venue_id}/preview");
        let mut overview =
            map_overview::overview(&page, &shapes, &tiers, chosen.map(|s| s.id), &filter);
        // No prices yet: a section says its size where a buyer's says "from €45".
        for section in &mut overview.sections {
            if let Some(shape) = shapes.sections.iter().find(|s| s.id == section.id) {
                section.caption = crate::words::count(shape.seats_total, "seat", "seats");
            }
        }
        overview
    });
    let mut tier_legend = crate::web::seat_view::tier_legend(&tiers);
    // No event, no prices: the key names the tiers only.
    for tier in &mut tier_legend {
        tier.price.clear();
    }
    let page = PreviewPage {
        staff_bar: staff.bar(),
        id: venue_id,
        name: layout.name.clone(),
        version,
        canvas,
        overview,
        section_name: chosen.map(|s| s.name.clone()),
        filter,
        tiers: tier_legend,
        statuses: crate::web::seat_view::status_legend(),
        oob: false,
    };
    Ok(render(&page)?.into_response())
}

/// The layout as an event would store it, every seat free: seat and
/// section ids are their places in the layout, from 1.
fn as_event(layout: &VenueLayout) -> (Vec<Seat>, Vec<Tier>, MapShapes) {
    let tier_name = |code: &str| {
        layout
            .tiers
            .iter()
            .find(|t| t.code == code)
            .map_or_else(|| code.to_string(), |t| t.name.clone())
    };
    let seats: Vec<Seat> = layout
        .seat_specs()
        .into_iter()
        .enumerate()
        .map(|(i, spec)| Seat {
            id: SeatId(i as i64 + 1),
            section: layout.sections[spec.section_index].name.clone(),
            section_id: SectionId(spec.section_index as i64 + 1),
            tier_name: tier_name(&spec.tier),
            tier_code: spec.tier,
            row_label: spec.row_label,
            seat_label: spec.seat_label,
            row_index: spec.row_index,
            position: spec.position,
            x: spec.x,
            y: spec.y,
            price_cents: 0,
            state: SeatState::Available,
            accessibility: spec.flags.iter().map(|f| f.as_str().to_string()).collect(),
            view_note: spec.view_note.clone(),
            held_until: None,
            holder: None,
        })
        .collect();
    let tiers: Vec<Tier> = layout
        .tiers
        .iter()
        .map(|t| Tier {
            code: t.code.clone(),
            name: t.name.clone(),
            price_cents: 0,
            currency: Default::default(),
        })
        .collect();
    let sections = layout
        .sections
        .iter()
        .enumerate()
        .map(|(i, section)| {
            let mut free_tiers: Vec<String> =
                section.seats.iter().map(|s| s.tier.clone()).collect();
            free_tiers.sort();
            free_tiers.dedup();
            SectionShape {
                id: SectionId(i as i64 + 1),
                name: section.name.clone(),
                outline: section.venue_outline(),
                seats_total: section.seats.len() as i64,
                seats_available: section.seats.len() as i64,
                // No prices yet: the section is drawn in its first seat's tier.
                from_cents: Some(0),
                from_tier: section.seats.first().map(|s| s.tier.clone()),
                free_tiers,
                mine: 0,
            }
        })
        .collect();
    let areas = layout
        .ga_areas
        .iter()
        .enumerate()
        .filter_map(|(i, area)| {
            Some(AreaShape {
                id: AreaId(i as i64 + 1),
                name: area.name.clone(),
                outline: geometry::from_pairs(area.outline.as_ref()?),
            })
        })
        .collect();
    let shapes = MapShapes {
        stage: layout.stage.clone(),
        sections,
        areas,
        labels: layout.labels.clone(),
    };
    (seats, tiers, shapes)
}
