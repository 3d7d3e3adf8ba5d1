//! A hold as one row reads: its columns, and the buyer's open hold,
//! locked, with a lapsed one closed first (what opening and claiming share).

use std::sync::LazyLock;

use tokio_postgres::Row;

use crate::db::GenericClient;
use crate::domain::hold::{Hold, HoldState};
use crate::domain::ids::{BuyerId, EventId};
use crate::domain::locale::EventLocale;
use crate::domain::payment::PaymentMode;
use crate::error::AppResult;

// The event's currency and zone come from a subquery, not a join: these
// columns are read under FOR UPDATE, which would lock a joined event row.
pub(super) const HOLD_COLUMNS: &str = "id, event_id, buyer_id, state, expires_at,
     (state = 'OPEN' AND expires_at > now()) AS live,
     (released_by_staff IS NOT NULL OR released_by_key IS NOT NULL) AS released_by_staff, extended,
     (SELECT ARRAY[e.currency, e.time_zone, e.payment] FROM events e WHERE e.id = holds.event_id) AS locale";

pub(super) fn hold_from_row(row: &Row) -> Hold {
    let (locale, payment) = hold_locale(&row.get::<_, Vec<String>>("locale"));
    Hold {
        id: row.get("id"),
        event_id: row.get("event_id"),
        buyer_id: row.get("buyer_id"),
        state: HoldState::from_db(row.get("state")),
        expires_at: row.get("expires_at"),
        live: row.get("live"),
        released_by_staff: row.get("released_by_staff"),
        extended: row.get("extended"),
        locale,
        payment,
    }
}

/// The hold's event's locale and payment mode, from its `locale` column
/// (`ARRAY[currency, time_zone, payment]`).
pub(super) fn hold_locale(columns: &[String]) -> (EventLocale, PaymentMode) {
    let locale = match columns {
        [currency, zone, ..] => {
            crate::i18n::locale(crate::db::events::currency_column(currency), zone)
        }
        _ => EventLocale::default(),
    };
    let payment = columns
        .get(2)
        .and_then(|mode| PaymentMode::parse(mode))
        .unwrap_or_default();
    (locale, payment)
}

pub(in crate::db) const CLOSE_LAPSED: &str = "UPDATE holds SET state = 'EXPIRED', closed_at = now()
      WHERE event_id = $1 AND buyer_id = $2 AND state = 'OPEN' AND expires_at <= now()";

pub(in crate::db) static LOCK_OPEN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {HOLD_COLUMNS} FROM holds
          WHERE event_id = $1 AND buyer_id = $2 AND state = 'OPEN' AND expires_at > now()
            FOR UPDATE"
    )
});

/// Closes the buyer's open hold for the event if it has lapsed, so the
/// one-open-hold-per-buyer index lets a new one in.
pub(super) async fn close_lapsed(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<()> {
    let close_lapsed = client.prepare_cached(CLOSE_LAPSED).await?;
    client
        .execute(&close_lapsed, &[&event_id, &buyer_id])
        .await?;
    Ok(())
}

/// The buyer's open, unlapsed hold for the event, locked. (Not lapsed
/// either way: it may run before or after [`close_lapsed`], which it is
/// sent with.)
pub(super) async fn lock_open(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let lock = client.prepare_cached(&LOCK_OPEN).await?;
    let row = client.query_opt(&lock, &[&event_id, &buyer_id]).await?;
    Ok(row.as_ref().map(hold_from_row))
}
