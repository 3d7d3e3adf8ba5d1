use serde::Serialize;
use time::OffsetDateTime;
use tokio_postgres::Row;

use super::GenericClient;
use crate::error::AppResult;

#[derive(Debug, Clone, Serialize)]
pub struct EventSummary {
    pub id: i64,
    pub name: String,
    pub venue: String,
    #[serde(with = "time::serde::rfc3339")]
    pub starts_at: OffsetDateTime,
    pub seats_total: i64,
    pub seats_available: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tier {
    pub code: String,
    pub name: String,
    pub price_cents: i32,
}

/// A lapsed hold counts as available, exactly as the claim query treats it.
const SUMMARY: &str = "
    SELECT e.id, e.name, e.venue, e.starts_at,
           count(s.id) AS seats_total,
           count(s.id) FILTER (WHERE s.status = 'AVAILABLE'
                               OR (s.status = 'HELD' AND s.held_until < now())) AS seats_available
      FROM events e
      LEFT JOIN seats s ON s.event_id = e.id";

fn summary_from_row(row: &Row) -> EventSummary {
    EventSummary {
        id: row.get("id"),
        name: row.get("name"),
        venue: row.get("venue"),
        starts_at: row.get("starts_at"),
        seats_total: row.get("seats_total"),
        seats_available: row.get("seats_available"),
    }
}

pub async fn list(client: &impl GenericClient) -> AppResult<Vec<EventSummary>> {
    let statement = client
        .prepare_cached(&format!(
            "{SUMMARY} GROUP BY e.id ORDER BY e.starts_at, e.id"
        ))
        .await?;
    let rows = client.query(&statement, &[]).await?;
    Ok(rows.iter().map(summary_from_row).collect())
}

pub async fn find(client: &impl GenericClient, event_id: i64) -> AppResult<Option<EventSummary>> {
    let statement = client
        .prepare_cached(&format!("{SUMMARY} WHERE e.id = $1 GROUP BY e.id"))
        .await?;
    let row = client.query_opt(&statement, &[&event_id]).await?;
    Ok(row.as_ref().map(summary_from_row))
}

pub async fn exists(client: &impl GenericClient, event_id: i64) -> AppResult<bool> {
    let statement = client
        .prepare_cached("SELECT 1 FROM events WHERE id = $1")
        .await?;
    Ok(client.query_opt(&statement, &[&event_id]).await?.is_some())
}

pub async fn tiers(client: &impl GenericClient, event_id: i64) -> AppResult<Vec<Tier>> {
    let statement = client
        .prepare_cached(
            "SELECT code, name, price_cents FROM price_tiers
              WHERE event_id = $1 ORDER BY sort_order, price_cents DESC",
        )
        .await?;
    let rows = client.query(&statement, &[&event_id]).await?;
    Ok(rows
        .iter()
        .map(|row| Tier {
            code: row.get("code"),
            name: row.get("name"),
            price_cents: row.get("price_cents"),
        })
        .collect())
}
