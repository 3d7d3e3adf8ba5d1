//! Creating events from a grid layout: the demo event, and the small
//! events tests build.

use time::OffsetDateTime;

use super::Pool;
use super::events::{self, NewEvent};
use crate::domain::ids::EventId;
use crate::domain::layout::{EventSpec, demo_event};
use crate::error::{AppError, AppResult};

/// Creates the event with all its seats in one transaction. If the spec has
/// a slug that already exists, returns that event instead (idempotent).
pub async fn create_event(pool: &Pool, spec: &EventSpec) -> AppResult<EventId> {
    let layout = spec.layout().map_err(|errors| {
        AppError::Internal(anyhow::anyhow!("the event {:?} has a bad layout: {errors:?}", spec.name))
    })?;
    let new_event = NewEvent {
        slug: spec.slug.clone(),
        name: spec.name.clone(),
        venue_id: None,
        starts_at: spec.starts_at,
        on_sale_at: None,
        currency: spec.currency.clone(),
        tiers: spec.tiers.clone(),
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
