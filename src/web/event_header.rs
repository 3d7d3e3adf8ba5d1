//! The header every event page shares, buyer's and staff's: the event's
//! name, venue, time and sale state, in the venue's locale.

use crate::db;
use crate::db::events::EventSummary;
use crate::domain::ids::EventId;
use crate::domain::locale::EventLocale;
use crate::domain::money::group_thousands;
use crate::domain::sale::SaleStatus;
use crate::error::{AppError, AppResult, Missing};
use crate::web::state::AppState;

pub struct EventHeader {
    pub id: EventId,
    /// The event's currency and venue time zone, for pages that show more.
    pub locale: EventLocale,
    pub name: String,
    pub venue: String,
    pub starts: String,
    /// Counts for people: "1,037".
    pub seats_available: String,
    pub seats_total: String,
    /// "120 of 500 standing places left", when the event has GA areas.
    pub ga_left: Option<String>,
    /// "from €30": the lowest price of anything free now.
    pub from_price: Option<String>,
    pub sold_out: bool,
    pub on_sale: bool,
    /// Why nothing can be bought now ("On sale at …"), if so.
    pub sale_notice: Option<String>,
    /// For staff: "On sale", "Not on sale yet", "Sales closed", …
    pub sale_label: &'static str,
    /// Staff may still close sales / cancel the event.
    pub closable: bool,
    pub cancellable: bool,
}

impl From<&EventSummary> for EventHeader {
    fn from(event: &EventSummary) -> EventHeader {
        let locale = EventLocale::new(event.currency, &event.time_zone);
        EventHeader {
            locale: locale.clone(),
            id: event.id,
            name: event.name.clone(),
            venue: event.venue.clone(),
            starts: locale.time(event.starts_at),
            seats_available: group_thousands(event.seats_available.max(0) as u64),
            seats_total: group_thousands(event.seats_total.max(0) as u64),
            ga_left: (event.ga_total > 0).then(|| {
                format!(
                    "{} of {} standing places left",
                    group_thousands(event.ga_available.max(0) as u64),
                    group_thousands(event.ga_total.max(0) as u64)
                )
            }),
            from_price: event
                .from_cents
                .map(|cents| format!("from {}", locale.price(cents))),
            sold_out: event.seats_available + event.ga_available == 0,
            on_sale: event.sale == SaleStatus::OnSale,
            sale_notice: crate::words::sale_notice(event.sale, event.on_sale_at, &locale),
            sale_label: match event.sale {
                SaleStatus::OnSale => "On sale",
                SaleStatus::NotYet => "Not on sale yet",
                SaleStatus::Closed => "Sales closed",
                SaleStatus::Started => "Started",
                SaleStatus::Cancelled => "Cancelled",
            },
            closable: !matches!(event.sale, SaleStatus::Closed | SaleStatus::Cancelled),
            cancellable: event.sale != SaleStatus::Cancelled,
        }
    }
}

/// The event a staff page is about, or 404.
pub async fn event_header(state: &AppState, event_id: EventId) -> AppResult<EventHeader> {
    let client = state.pool.get().await?;
    let event = db::events::find(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    Ok(EventHeader::from(&event))
}
