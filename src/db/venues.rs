//! Venues imported from layout files, and events created from them.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use super::events::{self, NewEvent};
use super::{GenericClient, Pool};
use crate::domain::ids::VenueId;
use crate::domain::ids::{EventId, StaffId};
use crate::domain::layout::TierSpec;
use crate::domain::venue::{self, VenueLayout};
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

#[derive(Debug, Clone)]
pub struct VenueSummary {
    pub id: VenueId,
    pub name: String,
    pub seat_count: i32,
    pub ga_capacity: i32,
    pub imported_at: OffsetDateTime,
}

/// Stores a validated layout, in one statement: either all of it is
/// written or nothing is. A venue name is taken once.
pub async fn import(
    client: &impl GenericClient,
    layout: &VenueLayout,
    staff_id: Option<StaffId>,
) -> AppResult<VenueId> {
    let row = client
        .query_opt(
            "INSERT INTO venues (name, layout, seat_count, ga_capacity, imported_by)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (name) DO NOTHING RETURNING id",
            &[
                &layout.name,
                &layout.to_json(),
                &(layout.seat_count() as i32),
                &(layout.ga_capacity() as i32),
                &staff_id,
            ],
        )
        .await?;
    row.map(|row| row.get(0))
        .ok_or_else(|| AppError::Conflict(Conflict::VenueExists(layout.name.clone())))
}

/// The venue's id: imported now, or already there under its name (the
/// demo and benchmarks import the shipped examples once per database).
pub async fn import_or_reuse(pool: &Pool, layout: &VenueLayout) -> AppResult<VenueId> {
    let client = pool.get().await?;
    match import(&client, layout, None).await {
        Ok(id) => Ok(id),
        Err(AppError::Conflict(_)) => Ok(client
            .query_one("SELECT id FROM venues WHERE name = $1", &[&layout.name])
            .await?
            .get(0)),
        Err(other) => Err(other),
    }
}

pub async fn list(client: &impl GenericClient) -> AppResult<Vec<VenueSummary>> {
    let rows = client
        .query(
            "SELECT id, name, seat_count, ga_capacity, imported_at FROM venues ORDER BY name",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| VenueSummary {
            id: row.get("id"),
            name: row.get("name"),
            seat_count: row.get("seat_count"),
            ga_capacity: row.get("ga_capacity"),
            imported_at: row.get("imported_at"),
        })
        .collect())
}

/// The venue's stored layout, read back through the same validation as a
/// file.
pub async fn layout(client: &impl GenericClient, venue_id: VenueId) -> AppResult<VenueLayout> {
    let row = client
        .query_opt(
            "SELECT layout::text FROM venues WHERE id = $1",
            &[&venue_id],
        )
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Venue))?;
    let text: String = row.get(0);
    venue::from_json(&text).map_err(|errors| {
        AppError::Internal(anyhow::anyhow!(
            "stored layout of venue {venue_id} no longer validates: {errors:?}"
        ))
    })
}

/// An event to create from a venue, as staff entered it.
#[derive(Debug, Clone)]
pub struct EventPlan {
    pub venue_id: VenueId,
    pub name: String,
    pub starts_at: OffsetDateTime,
    /// None: on sale as soon as it is created.
    pub on_sale_at: Option<OffsetDateTime>,
    /// Price in minor units of `currency` for each of the venue's tier codes.
    pub prices: BTreeMap<String, i32>,
    /// ISO 4217.
    pub currency: String,
}

/// Creates the event, its tiers, sections, every seat and GA area from the
/// venue's layout, in one transaction.
pub async fn create_event(pool: &Pool, plan: &EventPlan) -> AppResult<EventId> {
    let layout = {
        let client = pool.get().await?;
        layout(&client, plan.venue_id).await?
    };
    let tiers = layout
        .tiers
        .iter()
        .map(|tier| {
            let price = plan.prices.get(&tier.code).copied().ok_or_else(|| {
                AppError::Invalid(Invalid::MissingPrice {
                    tier: tier.name.clone(),
                })
            })?;
            Ok(TierSpec {
                code: tier.code.clone(),
                name: tier.name.clone(),
                price_cents: price,
            })
        })
        .collect::<AppResult<Vec<_>>>()?;
    if let Some(code) = plan
        .prices
        .keys()
        .find(|code| !layout.tiers.iter().any(|t| &t.code == *code))
    {
        return Err(AppError::Invalid(Invalid::VenueHasNoTier(code.clone())));
    }
    let new_event = NewEvent {
        slug: None,
        name: plan.name.clone(),
        venue_id: Some(plan.venue_id),
        starts_at: plan.starts_at,
        on_sale_at: plan.on_sale_at,
        currency: plan.currency.clone(),
        tiers,
        layout,
    };
    events::create(pool, &new_event).await
}
