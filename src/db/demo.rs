//! Creating events from a grid layout: the demo event, and the small
//! events tests build.

use time::OffsetDateTime;

use super::{GenericClient, Pool};
use crate::domain::layout::{EventSpec, demo_event, grid_seats};
use crate::error::AppResult;

/// Creates the event with all its seats in one transaction. If the spec has
/// a slug that already exists, returns that event instead (idempotent).
pub async fn create_event(pool: &Pool, spec: &EventSpec) -> AppResult<i64> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let inserted = tx
        .query_opt(
            "INSERT INTO events (slug, name, venue, starts_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (slug) DO NOTHING RETURNING id",
            &[&spec.slug, &spec.name, &spec.venue, &spec.starts_at],
        )
        .await?;
    let event_id: i64 = match inserted {
        Some(row) => row.get(0),
        None => {
            let row = tx
                .query_one("SELECT id FROM events WHERE slug = $1", &[&spec.slug])
                .await?;
            return Ok(row.get(0));
        }
    };
    insert_layout(&tx, event_id, spec).await?;
    tx.commit().await?;
    Ok(event_id)
}

async fn insert_layout(tx: &impl GenericClient, event_id: i64, spec: &EventSpec) -> AppResult<()> {
    for (order, tier) in spec.tiers.iter().enumerate() {
        tx.execute(
            "INSERT INTO price_tiers (event_id, code, name, price_cents, sort_order)
             VALUES ($1, $2, $3, $4, $5)",
            &[
                &event_id,
                &tier.code,
                &tier.name,
                &tier.price_cents,
                &(order as i32),
            ],
        )
        .await?;
    }
    let mut section_ids = Vec::with_capacity(spec.sections.len());
    for (order, section) in spec.sections.iter().enumerate() {
        let row = tx
            .query_one(
                "INSERT INTO sections (event_id, name, sort_order) VALUES ($1, $2, $3) RETURNING id",
                &[&event_id, &section.name, &(order as i32)],
            )
            .await?;
        section_ids.push(row.get::<_, i64>(0));
    }

    // One statement for all seats: arrays in, unnest out. Ids follow layout
    // order (ORDER BY ordinality), so "claim in id order" is also left to right.
    let seats = grid_seats(spec);
    let section_col: Vec<i64> = seats.iter().map(|s| section_ids[s.section_index]).collect();
    let tier_col: Vec<&str> = seats.iter().map(|s| s.tier.as_str()).collect();
    let row_col: Vec<&str> = seats.iter().map(|s| s.row_label.as_str()).collect();
    let label_col: Vec<&str> = seats.iter().map(|s| s.seat_label.as_str()).collect();
    let row_index_col: Vec<i32> = seats.iter().map(|s| s.row_index).collect();
    let position_col: Vec<i32> = seats.iter().map(|s| s.position).collect();
    let x_col: Vec<f32> = seats.iter().map(|s| s.x).collect();
    let y_col: Vec<f32> = seats.iter().map(|s| s.y).collect();
    let rank_col: Vec<i32> = seats.iter().map(|s| s.rank).collect();
    let flags_col: Vec<String> = seats
        .iter()
        .map(|s| {
            s.flags
                .iter()
                .map(|f| f.as_str())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    let inserted = tx
        .execute(
            "INSERT INTO seats (event_id, section_id, tier_id, row_label, seat_label,
                            row_index, position, x, y, rank, accessibility)
         SELECT $1, l.section_id, t.id, l.row_label, l.seat_label,
                l.row_index, l.position, l.x, l.y, l.rank,
                coalesce(string_to_array(nullif(l.flags, ''), ','), '{}')
           FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[],
                       $6::int[], $7::int[], $8::real[], $9::real[], $10::int[], $11::text[])
                WITH ORDINALITY
                AS l(section_id, tier, row_label, seat_label, row_index, position, x, y, rank, flags, ord)
           JOIN price_tiers t ON t.event_id = $1 AND t.code = l.tier
          ORDER BY l.ord",
            &[
                &event_id,
                &section_col,
                &tier_col,
                &row_col,
                &label_col,
                &row_index_col,
                &position_col,
                &x_col,
                &y_col,
                &rank_col,
                &flags_col,
            ],
        )
        .await?;
    if inserted != seats.len() as u64 {
        return Err(anyhow::anyhow!(
            "layout names a tier it does not define: {} of {} seats inserted",
            inserted,
            seats.len()
        )
        .into());
    }
    Ok(())
}

/// Seeds the demo event (once) and returns its id.
pub async fn seed_demo(pool: &Pool) -> AppResult<i64> {
    let starts_at = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or(OffsetDateTime::now_utc())
        + time::Duration::days(30);
    create_event(pool, &demo_event(starts_at)).await
}
