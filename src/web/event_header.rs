//! The header every event page shares, buyer's and staff's: the event's
//! name, venue, time and sale state, in the venue's locale.

use crate::db;
use crate::db::events::EventSummary;
use crate::domain::ids::EventId;
use crate::domain::locale::EventLocale;
use crate::domain::sale::SaleStatus;
use crate::error::{AppError, AppResult, Missing};
use crate::web::state::AppState;

#[derive(Clone)]
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
    /// Not published: staff only.
    pub draft: bool,
    /// Why nothing can be bought now ("On sale at …"), if so.
    pub sale_notice: Option<String>,
    /// For staff: "On sale", "Not on sale yet", "Sales closed", …
    pub sale_label: String,
    /// Staff may still close sales / cancel the event.
    pub closable: bool,
    pub cancellable: bool,
}

impl From<&EventSummary> for EventHeader {
    fn from(event: &EventSummary) -> EventHeader {
        let locale = crate::i18n::locale(event.currency, &event.time_zone);
        let numbers = locale.lang.numbers();
        EventHeader {
            locale: locale.clone(),
            id: event.id,
            name: event.name.clone(),
            venue: event.venue.clone(),
            starts: locale.time(event.starts_at),
            seats_available: numbers.group(event.seats_available.max(0) as u64),
            seats_total: numbers.group(event.seats_total.max(0) as u64),
            ga_left: (event.ga_total > 0).then(|| {
                crate::i18n::t2(
                    "standing-left",
                    "left",
                    &numbers.group(event.ga_available.max(0) as u64),
                    "total",
                    &numbers.group(event.ga_total.max(0) as u64),
                )
            }),
            from_price: event
                .from_cents
                .map(|cents| crate::i18n::t1("price-from-amount", "price", &locale.price(cents))),
            sold_out: event.seats_available + event.ga_available == 0,
            on_sale: event.sale == SaleStatus::OnSale,
            draft: !event.published,
            sale_notice: crate::words::sale_notice(event.sale, event.on_sale_at, &locale),
            sale_label: crate::i18n::t(match event.sale {
                SaleStatus::Draft => "sale-label-draft",
                SaleStatus::OnSale => "sale-label-on-sale",
                SaleStatus::NotYet => "sale-label-not-yet",
                SaleStatus::Closed => "sale-label-closed",
                SaleStatus::Started => "sale-label-started",
                SaleStatus::Cancelled => "sale-label-cancelled",
            }),
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
