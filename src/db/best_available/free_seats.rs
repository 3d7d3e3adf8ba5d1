//! Free seats as best available sees them: which kinds of seat a request
//! may have (wheelchair spaces and companion seats held back from general
//! requests until the event releases them), the walk's SQL for each, and
//! the counts a refusal gives when nothing fits.

use super::request::{BestAvailableRequest, Filters};
use crate::db::GenericClient;
use crate::domain::ids::{EventId, SectionId};
use crate::domain::refusal::{Conflict, Filters as RefusedFilters, SectionSpaces};
use crate::error::AppResult;

/// Which free seats a walk of the rank order yields.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum WalkOf {
    /// Any seat a general request may have: wheelchair spaces and
    /// companion seats only once the event has released them.
    General,
    /// Wheelchair spaces, for a party with wheelchair users.
    WheelchairSpaces,
    /// Seats for the rest of such a party sitting apart: any but wheelchair
    /// spaces, and companion seats only once released.
    Companions,
}

/// Whether the event holds back wheelchair spaces and companion seats
/// from general requests, judged by each statement as it runs (like
/// expiry: no job releases them).
pub(super) const HELD_BACK: &str =
    "(SELECT accessible_held_back(e.accessible_seats, e.accessible_release_secs, e.starts_at)
                           FROM events e WHERE e.id = $1)";

/// The walk's SQL for one kind of seat: free seats in rank order from the
/// two partial indexes (available, and held but lapsed).
fn walk_sql(kind: &str) -> String {
    let reserved = crate::db::waitlist_first::reserved_sql(
        "$1",
        "seats.section_id",
        "seats.tier_id",
        "seats.accessibility",
    );
    let free_of = |status: &str| {
        format!(
            "(SELECT id, section_id, row_index, rank FROM seats
               WHERE event_id = $1 AND {status} AND (rank, id) > ($2, $3)
                 AND ($4::bigint IS NULL OR section_id = $4)
                 AND ($5::bigint IS NULL OR tier_id = $5)
                 AND NOT ($7::bool AND 'restricted_view' = ANY (accessibility))
                 AND ($9::int IS NULL
                      OR tier_id IN (SELECT id FROM price_tiers
                                      WHERE event_id = $1 AND price_cents <= $9))
                 AND ($8::bool OR NOT {reserved})
                 AND {kind}
               ORDER BY rank, id LIMIT $6)"
        )
    };
    format!(
        "SELECT id, section_id, row_index, rank FROM ({} UNION ALL {}) free ORDER BY rank, id LIMIT $6",
        free_of("status = 'AVAILABLE'"),
        free_of("status = 'HELD' AND held_until < now()")
    )
}

static WALK_GENERAL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    walk_sql(&format!(
        "(NOT accessibility && ARRAY['wheelchair', 'companion'] OR NOT {HELD_BACK})"
    ))
});
// Spelled as the partial index's predicate, so the planner can use it.
static WALK_WHEELCHAIR: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| walk_sql("'wheelchair' = ANY (accessibility)"));
// Apart, the rest of the party doesn't sit beside its spaces, so it has no
// claim on held-back companion seats either.
static WALK_COMPANIONS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    walk_sql(&format!(
        "NOT 'wheelchair' = ANY (accessibility)
         AND (NOT 'companion' = ANY (accessibility) OR NOT {HELD_BACK})"
    ))
});

/// The walk's statement for the kind of seat.
pub(super) fn walk_statement(of: WalkOf) -> &'static str {
    match of {
        WalkOf::General => &WALK_GENERAL,
        WalkOf::WheelchairSpaces => &WALK_WHEELCHAIR,
        WalkOf::Companions => &WALK_COMPANIONS,
    }
}

/// Free seats by section, as a refusal counts them.
struct FreeInSection {
    section_id: SectionId,
    name: String,
    /// Free wheelchair spaces.
    spaces: i64,
    /// Free seats a general request may have now.
    general: i64,
    /// Free seats other than wheelchair spaces.
    not_spaces: i64,
    /// Free seats held back from general requests.
    held_back: i64,
}

/// The free seats matching the tier and restricted-view filters, by
/// section (any section: a refusal may point to another one).
async fn free_by_section(
    client: &impl GenericClient,
    event_id: EventId,
    filters: &Filters,
) -> AppResult<Vec<FreeInSection>> {
    static FREE_BY_SECTION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "SELECT sec.id, sec.name,
                    count(*) FILTER (WHERE 'wheelchair' = ANY (s.accessibility)) AS spaces,
                    count(*) FILTER (WHERE NOT s.accessibility && ARRAY['wheelchair', 'companion']
                                        OR NOT held.back) AS general,
                    count(*) FILTER (WHERE NOT 'wheelchair' = ANY (s.accessibility)) AS not_spaces,
                    count(*) FILTER (WHERE s.accessibility && ARRAY['wheelchair', 'companion']
                                       AND held.back) AS held_back
               FROM seats s
               JOIN sections sec ON sec.id = s.section_id
              CROSS JOIN (SELECT {HELD_BACK} AS back) held
              WHERE s.event_id = $1
                AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.held_until < now()))
                AND ($2::bigint IS NULL OR s.tier_id = $2)
                AND NOT ($3::bool AND 'restricted_view' = ANY (s.accessibility))
              GROUP BY sec.id, sec.name
              ORDER BY min(s.rank), sec.id"
        )
    });
    let statement = client.prepare_cached(&FREE_BY_SECTION).await?;
    let rows = client
        .query(
            &statement,
            &[&event_id, &filters.tier_id, &filters.avoid_restricted_view],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| FreeInSection {
            section_id: row.get(0),
            name: row.get(1),
            spaces: row.get("spaces"),
            general: row.get("general"),
            not_spaces: row.get("not_spaces"),
            held_back: row.get("held_back"),
        })
        .collect())
}

/// Why nothing was found, counted after the search failed.
pub(super) async fn refusal(
    client: &impl GenericClient,
    event_id: EventId,
    filters: &Filters,
    request: &BestAvailableRequest,
) -> AppResult<Conflict> {
    let by_section = free_by_section(client, event_id, filters).await?;
    let (inside, outside): (Vec<&FreeInSection>, Vec<&FreeInSection>) = by_section
        .iter()
        .partition(|s| filters.section_id.is_none_or(|id| id == s.section_id));
    let sum = |f: fn(&FreeInSection) -> i64| inside.iter().map(|s| f(s)).sum::<i64>();
    let refused_filters = RefusedFilters {
        section: request.section.clone(),
        tier: request.tier.clone(),
    };
    let count = request.count;
    let wheelchair = request.wheelchair;
    if wheelchair > 0 {
        let free_spaces = sum(|s| s.spaces);
        let elsewhere: Vec<SectionSpaces> = outside
            .iter()
            .filter(|s| s.spaces > 0)
            .map(|s| SectionSpaces {
                section: s.name.clone(),
                free: s.spaces,
            })
            .collect();
        let others_free = sum(|s| s.not_spaces);
        return Ok(if free_spaces < i64::from(wheelchair) {
            Conflict::NoWheelchairSpace {
                wheelchair,
                free_spaces,
                filters: refused_filters,
                elsewhere,
            }
        } else if request.together && others_free >= i64::from(count - wheelchair) {
            Conflict::WheelchairNotTogether {
                count,
                wheelchair,
                free_spaces,
                filters: refused_filters,
                elsewhere,
            }
        } else {
            Conflict::NotEnoughSeats {
                count,
                free: free_spaces.min(i64::from(wheelchair)) + others_free,
                held_back: 0,
                filters: refused_filters,
            }
        });
    }
    let free = sum(|s| s.general);
    Ok(if request.together && free >= i64::from(count) {
        Conflict::NotEnoughTogether {
            count,
            free,
            filters: refused_filters,
        }
    } else {
        Conflict::NotEnoughSeats {
            count,
            free,
            held_back: sum(|s| s.held_back),
            filters: refused_filters,
        }
    })
}
