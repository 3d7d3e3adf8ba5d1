//! Creating events from a grid layout: the demo event, and the small
//! events tests build.

use time::OffsetDateTime;

use super::Pool;
use super::events::{self, NewEvent};
use super::venues;
use crate::domain::ids::EventId;
use crate::domain::layout::{EventSpec, TierSpec, demo_event};
use crate::domain::venue;
use crate::error::{AppError, AppResult};

/// Creates the event with all its seats in one transaction. If the spec has
/// a slug that already exists, returns that event instead (idempotent).
pub async fn create_event(pool: &Pool, spec: &EventSpec) -> AppResult<EventId> {
    let layout = spec.layout().map_err(|errors| {
        AppError::Internal(anyhow::anyhow!(
            "the event {:?} has a bad layout: {errors:?}",
            spec.name
        ))
    })?;
    let new_event = NewEvent {
        slug: spec.slug.clone(),
        name: spec.name.clone(),
        venue_id: None,
        venue_version: None,
        starts_at: spec.starts_at,
        on_sale_at: None,
        currency: spec.currency.clone(),
        tiers: spec.tiers.clone(),
        layout,
    };
    events::create(pool, &new_event).await
}

/// Seeds the demo arena (once): the shipped 20,000-seat layout as a venue
/// and an event of it on sale now, priced in US dollars, and returns the
/// event's id. A big venue, so the page opens on its overview.
pub async fn seed_arena(pool: &Pool) -> AppResult<EventId> {
    const SLUG: &str = "arena-demo";
    let seeded = {
        let client = pool.get().await?;
        events::id_by_slug(&client, SLUG).await?
    };
    if let Some(id) = seeded {
        return Ok(id);
    }
    let venue_id = venues::import_or_reuse(pool, &venue::examples::arena()?).await?;
    // Built from the venue as stored: staff may have saved a version since.
    let (layout, venue_version) = venues::latest(&pool.get().await?, venue_id).await?;
    let price = |code: &str| match code {
        "floor" => 14_500,
        "lower_side" => 11_000,
        "lower_end" => 8_500,
        "upper" => 5_900,
        _ => 3_900,
    };
    let new_event = NewEvent {
        slug: Some(SLUG.into()),
        name: "Seatmap Arena: Demo Tour".into(),
        venue_id: Some(venue_id),
        venue_version: Some(venue_version),
        starts_at: OffsetDateTime::now_utc()
            .replace_nanosecond(0)
            .unwrap_or(OffsetDateTime::now_utc())
            + time::Duration::days(45),
        on_sale_at: None,
        currency: "USD".into(),
        tiers: layout
            .tiers
            .iter()
            .map(|tier| TierSpec {
                code: tier.code.clone(),
                name: tier.name.clone(),
                price_cents: price(&tier.code),
            })
            .collect(),
        layout,
    };
    events::create(pool, &new_event).await
}

/// Seeds the demo event (once) and returns its id.
pub async fn seed_demo(pool: &Pool) -> AppResult<EventId> {
    let starts_at = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or(OffsetDateTime::now_utc())
        + time::Duration::days(30);
    create_event(pool, &demo_event(starts_at)).await
}
