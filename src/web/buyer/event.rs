//! The buyer's pages: the event list, the seat map with its hold panel,
//! and the list view.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use time::OffsetDateTime;

use crate::db::events::{EventSummary, Tier};
use crate::db::ga::GaAreaView;
use crate::db::{self, GenericClient};
use crate::domain::hold::Hold;
use crate::domain::ids::SectionId;
use crate::domain::ids::{BuyerId, EventId};
use crate::domain::seat::Seat;
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::Viewer;
use crate::web::buyer::panel::BestForm;
use crate::web::buyer::panel::GaBlock;
use crate::web::buyer::panel::HoldPanel;
use crate::web::buyer::seat_list::ListSection;
use crate::web::buyer::seat_list::SectionLink;
use crate::web::event_header::EventHeader;
use crate::web::extract::{BuyerFields, IdPath, QueryInput};
use crate::web::map::{self, PriceFilter, SeatCanvas};
use crate::web::map_overview::{self, Overview};
use crate::web::map_parts;
use crate::web::notices::{Notice, take_notice};
use crate::web::render::*;
use crate::web::seat_view::StatusLegend;
use crate::web::seat_view::TierLegend;
use crate::web::state::AppState;

#[derive(Template)]
#[template(path = "events/index.html")]
pub(crate) struct IndexPage {
    cards: Vec<IndexCard>,
    seasons: Vec<SeasonCard>,
}

/// One entry of the list: an event, or a series of them under one name
/// with each date.
pub(crate) struct IndexCard {
    pub first: EventHeader,
    /// Every date of a series (the first's too); empty for a lone event.
    pub dates: Vec<EventHeader>,
    pub series_id: Option<EventId>,
}

pub(crate) struct SeasonCard {
    pub id: crate::domain::ids::SeasonId,
    pub name: String,
    pub events: String,
}

/// Events in start order, a series (same series, same name) gathered
/// where its first date falls.
fn cards(events: &[EventSummary]) -> Vec<IndexCard> {
    let mut cards: Vec<IndexCard> = Vec::new();
    for event in events {
        let header = EventHeader::from(event);
        // A series is one show on several dates: copies renamed into other
        // shows (the demo's concerts) stand alone.
        match event.series_id.and_then(|series| {
            cards
                .iter_mut()
                .find(|card| card.series_id == Some(series) && card.first.name == event.name)
        }) {
            Some(card) => card.dates.push(header),
            None => cards.push(IndexCard {
                dates: vec![header.clone()],
                first: header,
                series_id: event.series_id,
            }),
        }
    }
    for card in &mut cards {
        if card.dates.len() < 2 {
            card.dates.clear();
        }
    }
    cards
}

pub(crate) async fn index(
    State(state): State<AppState>,
    // First: whatever the other extractors read (the session) is a read too.
    _read: crate::web::reads::ReadPermit,
) -> AppResult<Html<String>> {
    let (client, _) = state.read_client().await?;
    let events = db::events::list(&client).await?;
    let seasons = db::seasons::list(&client).await?;
    render(&IndexPage {
        cards: cards(&events),
        seasons: seasons
            .into_iter()
            .map(|(id, name, events)| SeasonCard {
                id,
                name,
                events: crate::i18n::t1("season-events", "count", events),
            })
            .collect(),
    })
}

/// A venue this big opens on its overview and shows one section at a time.
fn shows_by_section(state: &AppState, shapes: &db::map::MapShapes) -> bool {
    shapes.seat_count() > i64::from(state.config.overview_above_seats)
}

/// What part of the map to show, and the price range to show in full.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct MapQuery {
    pub section: Option<SectionId>,
    pub price_min: Option<i32>,
    pub price_max: Option<i32>,
    /// Seats with this attribute shown in full ("step_free", "clear_view").
    pub feature: Option<String>,
    /// Which part of a section too big for one page (0 is its front).
    pub part: Option<u32>,
}

#[derive(Template)]
#[template(path = "events/show.html")]
pub(crate) struct EventPage {
    event: EventHeader,
    /// The seats shown: all of a small venue's, or the chosen section's.
    canvas: Option<SeatCanvas>,
    /// Big venues: the section shapes (the page itself before a section is
    /// chosen, a small map beside it after).
    overview: Option<Overview>,
    /// The chosen section's name, when one is.
    section_name: Option<String>,
    section_id: Option<SectionId>,
    /// A section too big for one page: its parts, and the one shown.
    parts: Vec<map_parts::SectionPart>,
    part: Option<usize>,
    filter: PriceFilter,
    features: map::FeatureFilter,
    tiers: Vec<TierLegend>,
    statuses: Vec<StatusLegend>,
    panel: HoldPanel,
    best: BestForm,
    ga: Vec<GaBlock>,
    csrf: String,
    /// The live feed's starting cursor.
    since: String,
    /// The live feed's query before `since`: which seats the page shows
    /// ("section=4&", "seats=none&" on an overview, "" for all).
    live_scope: String,
    /// The server's clock at render time, so the page can time seat refreshes.
    server_now: String,
    notice: Option<Notice>,
    oob: bool,
    /// The waitlist's form, and the most seats a party may ask for: shown
    /// while the event is on sale and sold out, or parties already wait.
    waitlist_form: Option<u32>,
}

pub(crate) async fn event_page(
    State(state): State<AppState>,
    // First: whatever the other extractors read (the session) is a read too.
    _read: crate::web::reads::ReadPermit,
    IdPath(event_id): IdPath<EventId>,
    QueryInput(query): QueryInput<MapQuery>,
    viewer: Viewer,
    pass: crate::web::queue::gate::QueuePass,
    ip: crate::web::extract::ClientIp,
) -> AppResult<Response> {
    // While the event's waiting room is on, the map is for those admitted.
    use crate::web::queue::page::{Entry, waiting_room, with_entry_cookie};
    let cookie = match waiting_room(&state, event_id, &pass, viewer.buyer_id, ip).await? {
        Entry::Show(cookie) => cookie,
        Entry::Wait(to) => return Ok(to),
    };
    // A Viewer, not a Buyer: looking writes no session. The first action
    // makes the buyer, and its answer tells the page to reopen its live
    // feed (see `respond`), so the feed then knows whose seats are whose.
    let notice = take_notice(&viewer.session).await?;
    let page = event_page_response(
        &state,
        event_id,
        &query,
        (viewer.buyer_id, viewer.csrf.value(), &viewer.session),
        notice,
        None,
    )
    .await?;
    Ok(with_entry_cookie(page, cookie))
}

/// The whole event page. `buy_form` refills the buy form after a refused
/// purchase, and then the page answers 422.
pub(crate) async fn event_page_response(
    state: &AppState,
    event_id: EventId,
    query: &MapQuery,
    (buyer_id, csrf, session): (Option<BuyerId>, String, &tower_sessions::Session),
    notice: Option<Notice>,
    buy_form: Option<BuyerFields>,
) -> AppResult<Response> {
    let crate::web::state::LivePageRead {
        client,
        event,
        since,
        hold,
    } = state.live_page_read(event_id, buyer_id).await?;
    // A draft's page is staff's preview; its notice says it is a draft.
    super::draft::draft_preview(state, session, event.published).await?;
    // Seats of the buyer's order waiting for its payment are theirs too,
    // as the live feed shows them (by the hold's buyer).
    let paying = match (buyer_id, &hold) {
        (Some(buyer_id), None) => {
            db::orders::awaiting_payment_for_buyer(&client, event_id, buyer_id).await?
        }
        _ => None,
    };
    let hold_id = hold
        .as_ref()
        .map(|h| h.id)
        .or(paying.as_ref().map(|order| order.hold_id));
    let tiers = db::events::tiers(&client, event_id).await?;
    let shapes = db::map::shapes(&client, event_id, hold_id).await?;
    let filter = PriceFilter::new(&tiers, query.price_min, query.price_max);
    let big = shows_by_section(state, &shapes);
    let chosen = match query.section.filter(|_| big) {
        Some(id) => Some(
            shapes
                .sections
                .iter()
                .find(|s| s.id == id)
                .ok_or(AppError::NotFound(Missing::Section))?,
        ),
        None => None,
    };
    let seats = match (big, chosen) {
        (false, _) => Some(db::seats::for_event(&client, event_id, hold_id).await?),
        (true, Some(section)) => {
            Some(db::seats::for_section(&client, event_id, hold_id, section.id).await?)
        }
        (true, None) => None,
    };
    let (seats, parts, part) = match (seats, chosen) {
        (Some(seats), Some(section)) => {
            let section_id = section.id;
            let shown = section_part(seats, query.part, |i| {
                format!("/events/{event_id}?section={section_id}&part={i}#map-area")
            })?;
            (Some(shown.seats), shown.links, shown.index)
        }
        (seats, _) => (seats, Vec::new(), None),
    };
    let features =
        map::FeatureFilter::new(seats.as_deref().unwrap_or(&[]), query.feature.as_deref());
    let canvas = seats.map(|seats| map::seat_canvas(&seats, &tiers, &shapes, !big));
    let overview = big.then(|| {
        let page = format!("/events/{event_id}");
        map_overview::overview(&page, &shapes, &tiers, chosen.map(|s| s.id), &filter)
    });
    let canvas_scope = chosen.map(|s| s.id);
    let overview_only = canvas.is_none();
    let mut panel = page_panel(
        state,
        &client,
        event_id,
        buyer_id,
        hold.as_ref(),
        csrf.clone(),
    )
    .await?;
    let status = match buy_form {
        Some(form) => {
            panel.buyer_name = form.name;
            panel.buyer_email = form.email;
            StatusCode::UNPROCESSABLE_ENTITY
        }
        None => StatusCode::OK,
    };
    let header = EventHeader::from(&event);
    let waitlist_form = (header.on_sale
        && (header.sold_out || db::waitlist::has_waiting(&client, event_id).await?))
        .then_some(state.config.max_seats_per_hold);
    let page = EventPage {
        waitlist_form,
        event: header,
        canvas,
        overview,
        section_name: chosen.map(|s| s.name.clone()),
        section_id: chosen.map(|s| s.id),
        parts,
        part,
        filter,
        features,
        tiers: crate::web::seat_view::tier_legend(&tiers),
        statuses: crate::web::seat_view::status_legend(),
        best: BestForm::new(
            state.config.max_seats_per_hold,
            shapes.sections.iter().map(|s| s.name.clone()).collect(),
            &tiers,
        ),
        ga: crate::web::buyer::panel::ga_blocks(
            &db::ga::areas(&client, event_id, hold.as_ref().map(|h| h.id)).await?,
            state.config.max_seats_per_hold,
            event.currency,
        ),
        panel,
        csrf,
        since: since.as_str().to_string(),
        live_scope: match (&canvas_scope, overview_only) {
            (Some(section), _) => format!("section={section}&"),
            (None, true) => "seats=none&".to_string(),
            (None, false) => String::new(),
        },
        server_now: crate::words::rfc3339(OffsetDateTime::now_utc()),
        notice,
        oob: false,
    };
    Ok((status, render(&page)?).into_response())
}

/// The part of a section shown on one page.
struct ShownPart {
    seats: Vec<crate::domain::seat::Seat>,
    links: Vec<map_parts::SectionPart>,
    /// Which part, when the section has more than one.
    index: Option<usize>,
}

/// A section's seats as one page shows them: all of them, or, for one
/// bigger than a page ([`map_parts::SECTION_PAGE_SEATS`]), the part asked for
/// and links to the others. A part that isn't there is a 404.
fn section_part(
    mut seats: Vec<crate::domain::seat::Seat>,
    asked: Option<u32>,
    href: impl Fn(usize) -> String,
) -> AppResult<ShownPart> {
    let rows: Vec<i32> = seats.iter().map(|s| s.row_index).collect();
    let parts = map_parts::section_parts(&rows, map_parts::SECTION_PAGE_SEATS);
    if parts.len() <= 1 {
        return match asked {
            None | Some(0) => Ok(ShownPart {
                seats,
                links: Vec::new(),
                index: None,
            }),
            Some(_) => Err(AppError::NotFound(Missing::Page)),
        };
    }
    let index = asked.unwrap_or(0) as usize;
    let range = parts
        .get(index)
        .cloned()
        .ok_or(AppError::NotFound(Missing::Page))?;
    let links = map_parts::part_links(&seats, &parts, index, href);
    seats.truncate(range.end);
    seats.drain(..range.start);
    Ok(ShownPart {
        seats,
        links,
        index: Some(index),
    })
}

pub(crate) fn panel_timing(state: &AppState) -> (std::time::Duration, std::time::Duration) {
    (state.config.hold_ttl, state.config.hold_extension)
}

/// The hold panel for whoever is looking: a buyer's, or an empty one.
pub(crate) async fn panel_for(
    state: &AppState,
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: Option<BuyerId>,
    csrf: String,
) -> AppResult<HoldPanel> {
    match buyer_id {
        Some(buyer_id) => hold_panel(state, client, event_id, buyer_id, csrf).await,
        None => Ok(HoldPanel::new(
            event_id,
            panel_timing(state),
            None,
            (&[], &[]),
            OffsetDateTime::now_utc(),
            csrf,
        )),
    }
}

/// A live page's hold panel, from the hold the page was read for (see
/// `AppState::live_page_read`, which looks for it on the primary): read
/// again on a replica, a hold just released could show up again.
async fn page_panel(
    state: &AppState,
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: Option<BuyerId>,
    hold: Option<&Hold>,
    csrf: String,
) -> AppResult<HoldPanel> {
    match (buyer_id, hold) {
        (Some(buyer_id), Some(hold)) => {
            let held = db::seats::held_by_hold(client, event_id, hold.id).await?;
            panel_of(state, client, event_id, buyer_id, Some(hold), &held, csrf).await
        }
        (Some(buyer_id), None) => {
            panel_of(state, client, event_id, buyer_id, None, &[], csrf).await
        }
        (None, _) => panel_for(state, client, event_id, None, csrf).await,
    }
}

/// The buyer's hold panel as it is now: their live hold and its seats, or
/// why they have none (the box office released it).
pub async fn hold_panel(
    state: &AppState,
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
    csrf: String,
) -> AppResult<HoldPanel> {
    let hold = db::holds::live_for_buyer(client, event_id, buyer_id).await?;
    let held = match &hold {
        Some(hold) => db::seats::held_by_hold(client, event_id, hold.id).await?,
        None => Vec::new(),
    };
    panel_of(
        state,
        client,
        event_id,
        buyer_id,
        hold.as_ref(),
        &held,
        csrf,
    )
    .await
}

/// The panel for a hold (and its seats) already in hand.
pub(crate) async fn panel_of(
    state: &AppState,
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
    hold: Option<&Hold>,
    held: &[Seat],
    csrf: String,
) -> AppResult<HoldPanel> {
    let reads = PanelReads::read(client, event_id, buyer_id, hold).await?;
    Ok(reads.panel(state, event_id, hold, held, csrf))
}

/// What an answer with a hold panel reads besides the hold and its seats:
/// the GA areas, the tiers (for seat buttons), and, without a live hold,
/// whether the box office released the last one.
pub(crate) struct PanelReads {
    areas: Vec<GaAreaView>,
    pub tiers: Vec<Tier>,
    released_by_box_office: bool,
    /// The price types a held seat may be bought as (read with a hold only).
    types: Vec<crate::domain::price_type::TypeOffer>,
    /// The event's fee and tax, and whether it has promo codes a buyer
    /// may enter (read with a hold only).
    offer: Option<db::charges::PanelOffer>,
    /// Without a live hold: their order waiting for its payment, if any.
    awaiting: Option<db::orders::AwaitingPayment>,
}

impl PanelReads {
    /// All in one round trip (they don't depend on each other).
    pub(crate) async fn read(
        client: &impl GenericClient,
        event_id: EventId,
        buyer_id: BuyerId,
        hold: Option<&Hold>,
    ) -> AppResult<PanelReads> {
        let (areas, tiers, latest, types, offer, awaiting) = tokio::join!(
            db::ga::areas(client, event_id, hold.map(|h| h.id)),
            db::events::tiers(client, event_id),
            async {
                match hold {
                    Some(_) => Ok(None),
                    None => db::holds::latest_for_buyer(client, event_id, buyer_id).await,
                }
            },
            async {
                match hold {
                    Some(_) => db::price_types::for_panel(client, event_id).await,
                    None => Ok(Vec::new()),
                }
            },
            async {
                match hold {
                    Some(hold) => db::charges::for_panel(client, event_id, hold.id)
                        .await
                        .map(Some),
                    None => Ok(None),
                }
            },
            async {
                match hold {
                    Some(_) => Ok(None),
                    None => {
                        db::orders::awaiting_payment_for_buyer(client, event_id, buyer_id).await
                    }
                }
            }
        );
        Ok(PanelReads {
            areas: areas?,
            tiers: tiers?,
            released_by_box_office: latest?.is_some_and(|hold| hold.released_by_staff),
            types: types?,
            offer: offer?,
            awaiting: awaiting?,
        })
    }

    pub(crate) fn panel(
        &self,
        state: &AppState,
        event_id: EventId,
        hold: Option<&Hold>,
        held: &[Seat],
        csrf: String,
    ) -> HoldPanel {
        let held_refs: Vec<&Seat> = held.iter().collect();
        let mut panel = HoldPanel::new(
            event_id,
            panel_timing(state),
            hold,
            (&held_refs, &self.areas),
            OffsetDateTime::now_utc(),
            csrf,
        );
        panel.released_by_box_office = hold.is_none() && self.released_by_box_office;
        panel.awaiting = self
            .awaiting
            .as_ref()
            .filter(|_| hold.is_none())
            .map(|order| crate::web::buyer::panel::AwaitingView {
                order_url: format!("/orders/{}", order.order_id),
                places: order.places.clone(),
            });
        if let Some(hold) = hold {
            let unlocked = self
                .offer
                .as_ref()
                .and_then(|offer| offer.applied.as_ref())
                .and_then(|code| code.unlocks.as_deref());
            panel.offer_types(&self.types, unlocked, (&held_refs, &self.areas), hold);
            if let Some(offer) = &self.offer {
                panel.charge(offer, hold);
            }
        }
        panel
    }
}

pub(crate) async fn live_hold(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: Option<BuyerId>,
) -> AppResult<Option<Hold>> {
    match buyer_id {
        Some(buyer_id) => db::holds::live_for_buyer(client, event_id, buyer_id).await,
        None => Ok(None),
    }
}

/// The buyer's live hold, on a connection of its own that is given back
/// before the action's own transaction takes one.
pub(crate) async fn buyers_live_hold(
    state: &AppState,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let client = state.pool.get().await?;
    live_hold(&client, event_id, Some(buyer_id)).await
}

#[derive(Template)]
#[template(path = "events/list.html")]
pub(crate) struct ListPage {
    event: EventHeader,
    sections: Vec<ListSection>,
    /// Big venues list one section at a time: links to each, until one is chosen.
    choose: Vec<SectionLink>,
    section_id: Option<SectionId>,
    /// A section too big for one page: its parts.
    parts: Vec<map_parts::SectionPart>,
    panel: HoldPanel,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
}

/// The list view: the seats a buyer can act on (available, or theirs),
/// by section and row, as plain buttons.
pub(crate) async fn list_page(
    State(state): State<AppState>,
    // First: whatever the other extractors read (the session) is a read too.
    _read: crate::web::reads::ReadPermit,
    IdPath(event_id): IdPath<EventId>,
    QueryInput(query): QueryInput<MapQuery>,
    viewer: Viewer,
    pass: crate::web::queue::gate::QueuePass,
    ip: crate::web::extract::ClientIp,
) -> AppResult<Response> {
    use crate::web::queue::page::{Entry, waiting_room, with_entry_cookie};
    let cookie = match waiting_room(&state, event_id, &pass, viewer.buyer_id, ip).await? {
        Entry::Show(cookie) => cookie,
        Entry::Wait(to) => return Ok(to),
    };
    // No live feed here, so no buyer id is needed until the first hold.
    let notice = take_notice(&viewer.session).await?;
    let csrf = viewer.csrf.value();
    let crate::web::state::LivePageRead {
        client,
        event,
        hold,
        ..
    } = state.live_page_read(event_id, viewer.buyer_id).await?;
    super::draft::draft_preview(&state, &viewer.session, event.published).await?;
    let hold_id = hold.as_ref().map(|h| h.id);
    let tiers = db::events::tiers(&client, event_id).await?;
    let shapes = db::map::shapes(&client, event_id, hold_id).await?;
    let big = shows_by_section(&state, &shapes);
    let mut list_parts = Vec::new();
    let (seats, choose, section_id) = match (big, query.section) {
        (false, _) => (
            db::seats::for_event(&client, event_id, hold_id).await?,
            Vec::new(),
            None,
        ),
        (true, Some(id)) => {
            if !shapes.sections.iter().any(|s| s.id == id) {
                return Err(AppError::NotFound(Missing::Section));
            }
            let seats = db::seats::for_section(&client, event_id, hold_id, id).await?;
            let shown = section_part(seats, query.part, |i| {
                format!("/events/{event_id}/list?section={id}&part={i}")
            })?;
            list_parts = shown.links;
            (shown.seats, Vec::new(), Some(id))
        }
        (true, None) => (
            Vec::new(),
            crate::web::buyer::seat_list::section_links(event_id, &shapes, event.currency),
            None,
        ),
    };
    let panel = page_panel(
        &state,
        &client,
        event_id,
        viewer.buyer_id,
        hold.as_ref(),
        csrf.clone(),
    )
    .await?;
    render(&ListPage {
        event: EventHeader::from(&event),
        sections: crate::web::buyer::seat_list::list_sections(&seats, &tiers),
        choose,
        section_id,
        parts: list_parts,
        panel,
        csrf,
        notice,
        oob: false,
    })
    .map(|page| with_entry_cookie(page.into_response(), cookie))
}
