//! Creating events from a grid layout: the demo event, and the small
//! events tests build.

use time::OffsetDateTime;

use super::Pool;
use super::events::{self, NewEvent};
use super::venues;
use crate::domain::ids::{EventId, SeasonId};
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
        // The demo sells at once.
        published: true,
    };
    events::create(pool, &new_event).await
}

/// Seeds the demo arena (once): the shipped 20,000-seat layout as a venue
/// and an event of it on sale now, priced in US dollars, and returns the
/// event's id. A big venue, so the page opens on its overview; its sale
/// has a waiting room opening a minute after it is seeded.
pub async fn seed_arena(
    pool: &Pool,
    queue_settings: &crate::config::QueueSettings,
) -> AppResult<EventId> {
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
        // The demo sells at once.
        published: true,
    };
    let event_id = events::create(pool, &new_event).await?;
    // On-sale day, shown: a waiting room that opens a minute (by default)
    // after the first start and admits at the rate the house sells ("auto"),
    // each join paying a small proof of work (the page solves it).
    let queue = super::queue::QueueSpec {
        opens_at: OffsetDateTime::now_utc() + queue_settings.demo_opens_in,
        admit_per_minute: None,
        window_minutes: 15,
        proof_of_work: queue_settings.demo_proof_of_work,
    };
    super::queue::put(pool, event_id, &queue).await?;
    Ok(event_id)
}

/// Seeds the demo event (once) and returns its id.
pub async fn seed_demo(pool: &Pool) -> AppResult<EventId> {
    let starts_at = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or(OffsetDateTime::now_utc())
        + time::Duration::days(30);
    create_event(pool, &demo_event(starts_at)).await
}

/// Seeds the offer's demo event (once): the demo hall sold as Adult, Child
/// (only with an adult) and Student (50 of them), a Members type the code
/// MEMBERS unlocks, a €1.50 booking fee, 19 % VAT included, and the code
/// SPRING20 (20 % off, 100 orders). A newcomer sees the whole offer on it.
pub async fn seed_offer_demo(pool: &Pool) -> AppResult<EventId> {
    let starts_at = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or(OffsetDateTime::now_utc())
        + time::Duration::days(31);
    let mut spec = demo_event(starts_at);
    spec.slug = Some("matinee".into());
    spec.name = "Seatmap Philharmonic: Family Matinee".into();
    let event_id = create_event(pool, &spec).await?;
    let client = pool.get().await?;
    // One statement: a second start finds the types there and adds nothing.
    client
        .execute(
            "WITH offered AS (
                 INSERT INTO price_types (event_id, code, labels, sort_order, quota, max_per_order,
                                          hidden, requires)
                 SELECT $1, t.code, t.labels::jsonb, t.sort_order, t.quota, t.max_per_order,
                        t.hidden, t.requires
                   FROM (VALUES
                     ('adult', '{\"en\": \"Adult\", \"de\": \"Erwachsene\", \"fr\": \"Adulte\", \"es\": \"Adulto\"}', 0, NULL::int, NULL::int, false, NULL),
                     ('child', '{\"en\": \"Child\", \"de\": \"Kind\", \"fr\": \"Enfant\", \"es\": \"Niño\"}', 1, NULL, 6, false, 'adult'),
                     ('student', '{\"en\": \"Student\", \"de\": \"Studierende\", \"fr\": \"Étudiant\", \"es\": \"Estudiante\"}', 2, 50, NULL, false, NULL),
                     ('members', '{\"en\": \"Members\", \"de\": \"Mitglieder\", \"fr\": \"Membres\", \"es\": \"Socios\"}', 3, NULL, NULL, true, NULL)
                   ) AS t(code, labels, sort_order, quota, max_per_order, hidden, requires)
                  WHERE NOT EXISTS (SELECT 1 FROM price_types WHERE event_id = $1)
              RETURNING id, code
             ), priced AS (
                 INSERT INTO price_type_prices (event_id, price_type_id, tier_id, price_cents)
                 SELECT $1, o.id, tier.id, p.cents
                   FROM offered o
                   JOIN (VALUES ('adult', 'premium', 8500), ('adult', 'standard', 5500), ('adult', 'value', 3000),
                                ('child', 'premium', 4200), ('child', 'standard', 2500), ('child', 'value', 1500),
                                ('student', 'standard', 3000), ('student', 'value', 2000),
                                ('members', 'premium', 7000), ('members', 'standard', 4500), ('members', 'value', 2500))
                        AS p(type_code, tier_code, cents) ON p.type_code = o.code
                   JOIN price_tiers tier ON tier.event_id = $1 AND tier.code = p.tier_code
             ), coded AS (
                 INSERT INTO promo_codes (event_id, code, percent_off, amount_off_cents, max_uses, unlocks)
                 SELECT $1, c.code, c.percent_off, c.amount_off, c.max_uses, c.unlocks
                   FROM (VALUES ('SPRING20', 20, NULL::int, 100, NULL),
                                ('MEMBERS', NULL, 500, NULL, 'members')) AS c(code, percent_off, amount_off, max_uses, unlocks)
                  WHERE EXISTS (SELECT 1 FROM offered)
             )
             UPDATE events SET booking_fee_cents = 150, tax_rate = 19, tax_included = true
              WHERE id = $1 AND EXISTS (SELECT 1 FROM offered)",
            &[&event_id],
        )
        .await?;
    Ok(event_id)
}

/// Seeds the demo season (once): three concerts on the Demo Hall, the
/// first made from the hall's layout and the other two "added as
/// performances" of it (copies, so they share its layout), sold together
/// as the Winter Season. A newcomer sees a season on the list.
pub async fn seed_season_demo(pool: &Pool) -> AppResult<SeasonId> {
    const FIRST: &str = "winter-1";
    let client = pool.get().await?;
    if let Some(row) = client
        .query_opt(
            "SELECT se.season_id FROM season_events se JOIN events e ON e.id = se.event_id
              WHERE e.slug = $1 LIMIT 1",
            &[&FIRST],
        )
        .await?
    {
        return Ok(row.get(0));
    }
    let starts_at = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or(OffsetDateTime::now_utc())
        + time::Duration::days(40);
    let mut spec = demo_event(starts_at);
    spec.slug = Some(FIRST.into());
    spec.name = "Winter Concerts I: Beethoven".into();
    let first = create_event(pool, &spec).await?;
    let copies = super::series::copy_event(
        pool,
        first,
        &[
            starts_at + time::Duration::days(7),
            starts_at + time::Duration::days(14),
        ],
    )
    .await?;
    // Three concerts, not three nights of one: each copy gets its name,
    // and is published (copies start as drafts).
    client
        .execute(
            "UPDATE events SET published_at = now(),
                    name = CASE id WHEN $1 THEN 'Winter Concerts II: Brahms'
                                   ELSE 'Winter Concerts III: Mahler' END
              WHERE id = ANY($2)",
            &[&copies[0], &copies],
        )
        .await?;
    let mut events = vec![first];
    events.extend(copies);
    super::seasons::create(
        pool,
        &super::seasons::NewSeason {
            name: "Winter Season: three concerts".into(),
            event_ids: events,
            prices: None,
            on_sale_at: None,
            choose_events: None,
            release_credit: true,
        },
    )
    .await
}
