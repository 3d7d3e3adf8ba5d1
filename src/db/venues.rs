//! Venues imported from layout files, and events created from them.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use super::events::{self, NewEvent};
use super::{GenericClient, Pool};
use crate::domain::ids::VenueId;
use crate::domain::ids::{Actor, EventId, StaffId};
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
    // The venue and its version 1 in one statement (the venue's key to
    // its latest version is checked at commit).
    let row = client
        .query_opt(
            "WITH venue AS (
                 INSERT INTO venues (name, layout, seat_count, ga_capacity, imported_by)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (name) DO NOTHING
                 RETURNING id, layout, seat_count, ga_capacity, imported_by, version)
             INSERT INTO venue_versions (venue_id, version, layout, seat_count, ga_capacity, saved_by)
             SELECT id, version, layout, seat_count, ga_capacity, imported_by FROM venue
             RETURNING venue_id",
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

/// The venue's latest layout, read back through the same validation as a
/// file.
pub async fn layout(client: &impl GenericClient, venue_id: VenueId) -> AppResult<VenueLayout> {
    let (text, _) = latest_json(client, venue_id).await?;
    parse_stored(venue_id, &text)
}

/// The venue's name (without reading its layout).
pub async fn name(client: &impl GenericClient, venue_id: VenueId) -> AppResult<String> {
    Ok(client
        .query_opt("SELECT name FROM venues WHERE id = $1", &[&venue_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Venue))?
        .get(0))
}

/// The latest layout and its version number.
pub async fn latest(
    client: &impl GenericClient,
    venue_id: VenueId,
) -> AppResult<(VenueLayout, i32)> {
    let (text, version) = latest_json(client, venue_id).await?;
    Ok((parse_stored(venue_id, &text)?, version))
}

/// The latest version's canonical JSON, as stored, and its number.
pub async fn latest_json(
    client: &impl GenericClient,
    venue_id: VenueId,
) -> AppResult<(String, i32)> {
    let row = client
        .query_opt(
            "SELECT layout::text, version FROM venues WHERE id = $1",
            &[&venue_id],
        )
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Venue))?;
    Ok((row.get(0), row.get(1)))
}

/// One version's layout.
pub async fn version_layout(
    client: &impl GenericClient,
    venue_id: VenueId,
    version: i32,
) -> AppResult<VenueLayout> {
    let row = client
        .query_opt(
            "SELECT layout::text FROM venue_versions WHERE venue_id = $1 AND version = $2",
            &[&venue_id, &version],
        )
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::VenueVersion))?;
    parse_stored(venue_id, &row.get::<_, String>(0))
}

fn parse_stored(venue_id: VenueId, text: &str) -> AppResult<VenueLayout> {
    venue::from_json(text).map_err(|errors| {
        AppError::Internal(anyhow::anyhow!(
            "stored layout of venue {venue_id} no longer validates: {errors:?}"
        ))
    })
}

/// Saves a new version of the venue, if its latest is still the one the
/// editor started from (`seen`): judged by the one conditional UPDATE that
/// bumps the version, so of two editors who saw the same version one wins
/// and the other is told which version is there now.
pub async fn save(
    pool: &Pool,
    venue_id: VenueId,
    seen: Option<i32>,
    layout: &VenueLayout,
    actor: Actor,
) -> AppResult<i32> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let json = layout.to_json();
    let saved = tx
        .query_opt(
            "UPDATE venues SET layout = $2, name = $3, seat_count = $4, ga_capacity = $5,
                               version = version + 1
              WHERE id = $1 AND ($6::int IS NULL OR version = $6)
                AND NOT EXISTS (SELECT 1 FROM venues other WHERE other.name = $3 AND other.id <> $1)
              RETURNING version",
            &[
                &venue_id,
                &json,
                &layout.name,
                &(layout.seat_count() as i32),
                &(layout.ga_capacity() as i32),
                &seen,
            ],
        )
        .await
        .map_err(|err| name_taken(err, &layout.name))?;
    let Some(saved) = saved else {
        let row = tx
            .query_opt("SELECT version FROM venues WHERE id = $1", &[&venue_id])
            .await?
            .ok_or_else(|| AppError::NotFound(Missing::Venue))?;
        let latest: i32 = row.get(0);
        return Err(if seen.is_some_and(|seen| seen != latest) {
            AppError::StaleLayout { latest }
        } else {
            AppError::Conflict(Conflict::VenueExists(layout.name.clone()))
        });
    };
    let version: i32 = saved.get(0);
    tx.execute(
        "INSERT INTO venue_versions (venue_id, version, layout, seat_count, ga_capacity,
                                     saved_by, saved_by_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            &venue_id,
            &version,
            &json,
            &(layout.seat_count() as i32),
            &(layout.ga_capacity() as i32),
            &actor.staff_id(),
            &actor.api_key_id(),
        ],
    )
    .await?;
    tx.commit().await?;
    Ok(version)
}

/// An event built from a venue, and the version it is on.
#[derive(Debug, Clone)]
pub struct VenueEvent {
    pub id: EventId,
    pub name: String,
    pub starts_at: OffsetDateTime,
    pub currency: String,
    pub version: i32,
}

/// The venue's events, soonest first.
pub async fn events_on(
    client: &impl GenericClient,
    venue_id: VenueId,
) -> AppResult<Vec<VenueEvent>> {
    let rows = client
        .query(
            "SELECT id, name, starts_at, currency, coalesce(venue_version, 1) AS version
               FROM events WHERE venue_id = $1 ORDER BY starts_at, id",
            &[&venue_id],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| VenueEvent {
            id: row.get("id"),
            name: row.get("name"),
            starts_at: row.get("starts_at"),
            currency: row.get("currency"),
            version: row.get("version"),
        })
        .collect())
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
    /// False: made a draft, for staff to publish when it is ready.
    pub published: bool,
}

/// Creates the event, its tiers, sections, every seat and GA area from the
/// venue's layout, in one transaction.
pub async fn create_event(pool: &Pool, plan: &EventPlan) -> AppResult<EventId> {
    let (layout, version) = latest(&pool.get().await?, plan.venue_id).await?;
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
        venue_version: Some(version),
        starts_at: plan.starts_at,
        on_sale_at: plan.on_sale_at,
        currency: plan.currency.clone(),
        tiers,
        layout,
        published: plan.published,
    };
    events::create(pool, &new_event).await
}

/// Another save or import that took the name first, between this save's
/// check and its write, is the same refusal as one it saw.
fn name_taken(err: tokio_postgres::Error, name: &str) -> AppError {
    let unique_name = err.as_db_error().is_some_and(|db| {
        *db.code() == tokio_postgres::error::SqlState::UNIQUE_VIOLATION
            && db.constraint() == Some("venues_name_key")
    });
    if unique_name {
        AppError::Conflict(Conflict::VenueExists(name.to_string()))
    } else {
        AppError::Database(err)
    }
}
