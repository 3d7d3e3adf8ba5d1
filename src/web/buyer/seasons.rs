//! The season's pages: its map (each place free only when free in every
//! night), picking places, best available, the hold panel and buying;
//! giving a night back to sale from a ticket; and a subscriber's renewal,
//! opened by the signed link in their mail. Every form works without
//! JavaScript (post, redirect, get); the map refreshes itself every few
//! seconds with htmx.

use askama::Template;
use axum::extract::{Query, RawQuery, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use time::OffsetDateTime;

use crate::db;
use crate::db::events::Tier;
use crate::domain::ids::{EventId, HoldId, SeasonId, SeatId};
use crate::domain::rules as input_rules;
use crate::domain::signed_link::SignedAccess;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult, Missing};
use crate::i18n::t1;
use crate::web::admission::{admit_hold_request, hold_request};
use crate::web::auth::{Buyer, Viewer};
use crate::web::buyer::seasons_api::{event_ids, visible_season};
use crate::web::extract::{ClientIp, IdPath};
use crate::web::map::{self, SeatCanvas};
use crate::web::notices::{Notice, NoticeKind, push_notice, take_notice};
use crate::web::render::render;
use crate::web::seat_view::{StatusLegend, TierLegend};
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

pub struct NightView {
    pub id: EventId,
    pub name: String,
    pub starts: String,
    /// Chosen (a partial season's choice), or simply one of the nights.
    pub chosen: bool,
}

pub struct PlaceView {
    pub id: SeatId,
    pub name: String,
    pub price: String,
}

#[derive(Template)]
#[template(path = "seasons/show.html")]
pub(crate) struct SeasonPage {
    season_id: SeasonId,
    name: String,
    nights: Vec<NightView>,
    /// "3 concerts, the same seat at each".
    summary: String,
    /// A partial season: how many nights to choose, and the choice so far
    /// ("1,3"), carried by every form.
    choose: Option<String>,
    chosen: String,
    /// Why nothing can be bought now, if so.
    sale_notice: Option<String>,
    canvas: SeatCanvas,
    tiers: Vec<TierLegend>,
    statuses: Vec<StatusLegend>,
    notice: Option<Notice>,
    csrf: String,
    /// The buyer's places and when they lapse.
    held: Vec<PlaceView>,
    expires_at: Option<String>,
    expires_at_text: Option<String>,
    /// "9:58": what the countdown starts from (without JavaScript, all it says).
    remaining: String,
    server_now: String,
    oob: bool,
    total: String,
    counts: Vec<u32>,
}

/// The nights a page's query chose: `event_ids=1,3` (the forms carry it),
/// or a ticked box per night, `night=1&night=3` (the choice form, which
/// works without JavaScript).
fn chosen_nights(query: Option<&str>) -> AppResult<Option<Vec<EventId>>> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query.unwrap_or(""))
        .map_err(|err| AppError::BadRequest(crate::error::Malformed::Query(err.to_string())))?;
    let ticked: Vec<&str> = pairs
        .iter()
        .filter(|(name, _)| name == "night")
        .map(|(_, value)| value.as_str())
        .collect();
    match ticked.is_empty() {
        true => event_ids(
            pairs
                .iter()
                .find(|(name, _)| name == "event_ids")
                .map(|(_, value)| value.as_str()),
        ),
        false => event_ids(Some(&ticked.join(","))),
    }
}

pub(crate) async fn season_page(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    viewer: Viewer,
    RawQuery(query): RawQuery,
) -> AppResult<Html<String>> {
    let client = state.pool.get().await?;
    let season = visible_season(&client, season_id).await?;
    let hold = match viewer.buyer_id {
        Some(buyer_id) => db::seasons::live_hold(&client, season_id, buyer_id).await?,
        None => None,
    };
    let asked = chosen_nights(query.as_deref())?;
    let nights = match (&hold, &asked) {
        (Some(hold), _) => hold.nights.clone(),
        (None, Some(chosen)) => season.nights(Some(chosen))?,
        (None, None) => season.event_ids(),
    };
    let first = season.first_event();
    let seats = db::seasons::map(&client, season_id, &nights, hold.as_ref().map(|h| h.id)).await?;
    let shapes = db::map::shapes(&client, first, None).await?;
    let tiers: Vec<Tier> = season
        .prices
        .iter()
        .map(|price| Tier {
            code: price.tier.clone(),
            name: price.tier_name.clone(),
            price_cents: price.price_cents,
            currency: season.currency,
        })
        .collect();
    let locale = crate::i18n::locale(season.currency, &season.time_zone);
    let held: Vec<PlaceView> = seats
        .iter()
        .filter(|seat| seat.state == crate::domain::seat::SeatState::Mine)
        .map(|seat| PlaceView {
            id: seat.id,
            name: crate::words::seat_name(seat),
            price: locale.price(seat.price_cents),
        })
        .collect();
    let total: i64 = seats
        .iter()
        .filter(|seat| seat.state == crate::domain::seat::SeatState::Mine)
        .map(|seat| i64::from(seat.price_cents))
        .sum();
    let now = OffsetDateTime::now_utc();
    let sale_notice = if season.on_sale_at > now {
        Some(t1("season-not-yet", "at", &locale.time(season.on_sale_at)))
    } else {
        season
            .events
            .iter()
            .filter(|event| nights.contains(&event.id))
            .find_map(|event| crate::words::sale_notice(event.sale, None, &locale))
            .filter(|_| {
                season
                    .events
                    .iter()
                    .any(|e| e.sale != crate::domain::sale::SaleStatus::NotYet)
            })
    };
    render(&SeasonPage {
        season_id,
        summary: t1("season-events", "count", season.events.len()),
        nights: season
            .events
            .iter()
            .map(|event| NightView {
                id: event.id,
                name: event.name.clone(),
                starts: locale.time(event.starts_at),
                chosen: nights.contains(&event.id),
            })
            .collect(),
        choose: season
            .choose_events
            .map(|k| t1("season-choose", "count", k)),
        chosen: match season.choose_events {
            Some(_) if nights.len() != season.events.len() => nights
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(","),
            _ => String::new(),
        },
        name: season.name,
        sale_notice,
        canvas: map::seat_canvas(&seats, &tiers, &shapes, true),
        tiers: crate::web::seat_view::tier_legend(&tiers),
        statuses: crate::web::seat_view::status_legend(),
        notice: take_notice(&viewer.session).await?,
        csrf: viewer.csrf.value(),
        expires_at: hold.as_ref().map(|h| crate::words::rfc3339(h.expires_at)),
        expires_at_text: hold.as_ref().map(|h| locale.time(h.expires_at)),
        remaining: hold.as_ref().map_or_else(String::new, |h| {
            let left = (h.expires_at - now).whole_seconds().max(0);
            format!("{}:{:02}", left / 60, left % 60)
        }),
        server_now: crate::words::rfc3339(now),
        oob: false,
        total: locale.price(total.clamp(0, i64::from(i32::MAX)) as i32),
        held,
        counts: (1..=8).collect(),
    })
}

/// Where a season form goes back to: the map, with the partial choice.
fn back(season_id: SeasonId, chosen: Option<&str>) -> String {
    match chosen.filter(|c| !c.is_empty()) {
        Some(chosen) => format!("/seasons/{season_id}?event_ids={chosen}#season-map"),
        None => format!("/seasons/{season_id}#season-map"),
    }
}

async fn back_with(buyer: &Buyer, to: String, outcome: AppResult<String>) -> AppResult<Response> {
    let notice = match outcome {
        Ok(text) => Notice::new(NoticeKind::Success, text),
        Err(err) => Notice::new(NoticeKind::Error, crate::words::refusal_notice(err)?),
    };
    push_notice(&buyer.session, &notice).await?;
    Ok(Redirect::to(&to).into_response())
}

#[derive(Deserialize)]
pub(crate) struct PlaceForm {
    hold: Option<SeatId>,
    release: Option<SeatId>,
    event_ids: Option<String>,
}

/// A seat button on the season's map: hold that place in every night, or
/// give it back.
pub(crate) async fn place_action(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    ip: ClientIp,
    buyer: Buyer,
    pass: crate::web::queue::gate::QueuePass,
    CsrfForm(form): CsrfForm<PlaceForm>,
) -> AppResult<Response> {
    let to = back(season_id, form.event_ids.as_deref());
    let outcome = async {
        let season = visible_season(&state.pool.get().await?, season_id).await?;
        match (form.hold, form.release) {
            (Some(place), _) => {
                let chosen = event_ids(form.event_ids.as_deref())?;
                crate::web::queue::gate::admit_all(
                    &state,
                    &season.nights(chosen.as_deref())?,
                    &pass,
                    buyer.id,
                )
                .await?;
                let rules = state.hold_rules();
                let holder = hold_request(&state, buyer.id, None, ip);
                db::seasons::claim_places(
                    &state.pool,
                    &season,
                    holder,
                    &[place],
                    chosen.as_deref(),
                    rules,
                )
                .await?;
                Ok(crate::i18n::t("season-place-held"))
            }
            (None, Some(place)) => {
                db::seasons::release_place(&state.pool, season_id, buyer.id, place).await?;
                Ok(crate::i18n::t("season-place-released"))
            }
            (None, None) => Err(AppError::BadRequest(crate::error::Malformed::NoSeatInForm)),
        }
    }
    .await;
    back_with(&buyer, to, outcome).await
}

#[derive(Deserialize)]
pub(crate) struct BestForm {
    count: i64,
    event_ids: Option<String>,
}

pub(crate) async fn best_available(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    ip: ClientIp,
    buyer: Buyer,
    pass: crate::web::queue::gate::QueuePass,
    CsrfForm(form): CsrfForm<BestForm>,
) -> AppResult<Response> {
    let to = back(season_id, form.event_ids.as_deref());
    let outcome = async {
        let season = visible_season(&state.pool.get().await?, season_id).await?;
        let rules = state.hold_rules();
        let count = input_rules::party_size(form.count, rules.max_seats)?;
        let chosen = event_ids(form.event_ids.as_deref())?;
        crate::web::queue::gate::admit_all(
            &state,
            &season.nights(chosen.as_deref())?,
            &pass,
            buyer.id,
        )
        .await?;
        let holder = hold_request(&state, buyer.id, None, ip);
        let (_, added) = db::seasons::claim_best(
            &state.pool,
            &season,
            holder,
            count,
            chosen.as_deref(),
            rules,
        )
        .await?;
        Ok(t1("season-best-found", "count", added.len()))
    }
    .await;
    back_with(&buyer, to, outcome).await
}

#[derive(Deserialize)]
pub(crate) struct ReleaseForm {
    event_ids: Option<String>,
}

pub(crate) async fn release_all(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    buyer: Buyer,
    CsrfForm(form): CsrfForm<ReleaseForm>,
) -> AppResult<Response> {
    let outcome = async {
        let hold = db::seasons::live_hold(&state.pool.get().await?, season_id, buyer.id)
            .await?
            .ok_or(AppError::NotFound(Missing::Hold))?;
        db::seasons::release_hold(&state.pool, season_id, hold.id, buyer.id).await?;
        Ok(crate::i18n::t("season-released"))
    }
    .await;
    back_with(&buyer, back(season_id, form.event_ids.as_deref()), outcome).await
}

#[derive(Deserialize)]
pub(crate) struct BuyForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    event_ids: Option<String>,
}

/// Buys the buyer's season hold: one order, a ticket per place per night.
pub(crate) async fn buy(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    buyer: Buyer,
    CsrfForm(form): CsrfForm<BuyForm>,
) -> AppResult<Response> {
    let outcome = async {
        let details = input_rules::buyer_details(&form.name, &form.email, crate::i18n::current())?;
        let hold = db::seasons::live_hold(&state.pool.get().await?, season_id, buyer.id)
            .await?
            .ok_or(AppError::HoldExpired)?;
        db::seasons::purchase(&state.pool, hold.id, buyer.id, &details, Default::default()).await
    }
    .await;
    match outcome {
        Ok(order) => Ok(Redirect::to(&format!("/orders/{}", order.order_id)).into_response()),
        Err(err) => back_with(&buyer, back(season_id, form.event_ids.as_deref()), Err(err)).await,
    }
}

/// "Give this night back to sale", from the order page (back to it, with
/// its signed query if it had one) or the ticket's own page.
pub(crate) async fn release_to_sale_form(
    State(state): State<AppState>,
    IdPath(code): IdPath<String>,
    headers: axum::http::HeaderMap,
    buyer: Buyer,
    ip: ClientIp,
    CsrfForm(_form): CsrfForm<ReleaseForm>,
) -> AppResult<Response> {
    admit_hold_request(&state, buyer.id, None, ip).await?;
    let parsed = TicketCode::parse(&code).map_err(|_| AppError::NotFound(Missing::Ticket))?;
    let released = db::seasons::release_to_sale(&state.pool, &parsed).await?;
    let text = match released.credit {
        true => crate::i18n::t("season-night-released-credit"),
        false => crate::i18n::t("season-night-released"),
    };
    push_notice(&buyer.session, &Notice::new(NoticeKind::Success, text)).await?;
    Ok(
        Redirect::to(&order_page_referred(&headers).unwrap_or(format!("/tickets/{parsed}")))
            .into_response(),
    )
}

/// The order page the form was sent from (path and query), if it was.
fn order_page_referred(headers: &axum::http::HeaderMap) -> Option<String> {
    let referer = headers.get(axum::http::header::REFERER)?.to_str().ok()?;
    let uri: axum::http::Uri = referer.parse().ok()?;
    let path_and_query = uri.path_and_query()?.as_str();
    (uri.path().starts_with("/orders/") && !path_and_query.contains("//"))
        .then(|| path_and_query.to_string())
}

#[derive(Template)]
#[template(path = "seasons/renewal.html")]
pub(crate) struct RenewalPage {
    season: String,
    buyer_name: String,
    buyer_email: String,
    places: Vec<String>,
    nights: Vec<NightView>,
    /// "until Fri 11 Dec 2026, 18:00": while it can still be renewed.
    until: Option<String>,
    renewed_as: Option<String>,
    /// The signed link's expiry and each form's own signature (and the
    /// page's, to come back to it).
    link_until: i64,
    renew_sig: String,
    give_up_sig: String,
    view_sig: String,
    hold_id: HoldId,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
}

#[derive(Deserialize)]
pub(crate) struct SignedQuery {
    until: i64,
    sig: String,
}

/// Whether the link opens `action` ("": the page; "/renew", "/give-up":
/// its forms, each signed for itself, so a link to the page does neither).
fn verified(state: &AppState, hold_id: HoldId, action: &str, query: &SignedQuery) -> AppResult<()> {
    let access = SignedAccess {
        until: query.until,
        sig: query.sig.clone(),
    };
    match state
        .links
        .key
        .verify_renewal(hold_id, action, &access, OffsetDateTime::now_utc())
    {
        true => Ok(()),
        false => Err(AppError::NotFound(Missing::Hold)),
    }
}

pub(crate) async fn renewal_page(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    viewer: Viewer,
    Query(query): Query<SignedQuery>,
) -> AppResult<Html<String>> {
    verified(&state, hold_id, "", &query)?;
    let client = state.pool.get().await?;
    let offer = db::seasons::renewal_for_link(&client, hold_id).await?;
    let action_until = OffsetDateTime::from_unix_timestamp(query.until)
        .map_err(|_| AppError::NotFound(Missing::Hold))?;
    let sign = |action: &str| {
        state
            .links
            .key
            .sign_renewal(hold_id, action, action_until)
            .sig
    };
    let season = db::seasons::find(&client, offer.hold.season_id).await?;
    let locale = crate::i18n::locale(season.currency, &season.time_zone);
    let seats = db::seasons::map(&client, season.id, &offer.hold.nights, Some(hold_id)).await?;
    render(&RenewalPage {
        places: seats
            .iter()
            .filter(|seat| seat.state == crate::domain::seat::SeatState::Mine)
            .map(|seat| {
                format!(
                    "{} · {}",
                    crate::words::seat_name(seat),
                    locale.price(seat.price_cents)
                )
            })
            .collect(),
        nights: season
            .events
            .iter()
            .map(|event| NightView {
                id: event.id,
                name: event.name.clone(),
                starts: locale.time(event.starts_at),
                chosen: true,
            })
            .collect(),
        season: season.name,
        buyer_name: offer.buyer_name,
        buyer_email: offer.buyer_email,
        until: offer.live.then(|| locale.time(offer.hold.expires_at)),
        renewed_as: offer.renewed_as.map(|id| id.to_string()),
        link_until: query.until,
        renew_sig: sign("/renew"),
        give_up_sig: sign("/give-up"),
        view_sig: query.sig,
        hold_id,
        csrf: viewer.csrf.value(),
        notice: take_notice(&viewer.session).await?,
        oob: false,
    })
}

#[derive(Deserialize)]
pub(crate) struct RenewalForm {
    until: i64,
    sig: String,
    /// The page's own signature, to go back to it.
    view: String,
}

impl RenewalForm {
    /// Checks the form's signature for `action`; answers the renewal
    /// page's address (with its own signature) to go back to.
    fn verified(self, state: &AppState, hold_id: HoldId, action: &str) -> AppResult<String> {
        let query = SignedQuery {
            until: self.until,
            sig: self.sig,
        };
        verified(state, hold_id, action, &query)?;
        Ok(format!(
            "/renewals/{hold_id}?until={}&sig={}",
            query.until, self.view
        ))
    }
}

/// Renew: buy the renewal hold for the subscriber, as their last order
/// named them. The signed link is the authority, not this browser.
pub(crate) async fn renew(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    buyer: Buyer,
    CsrfForm(form): CsrfForm<RenewalForm>,
) -> AppResult<Response> {
    let back = form.verified(&state, hold_id, "/renew")?;
    let outcome = async {
        let offer = db::seasons::renewal_for_link(&state.pool.get().await?, hold_id).await?;
        let lang =
            crate::domain::lang::Lang::from_tag(&offer.lang).unwrap_or(crate::i18n::current());
        let details = input_rules::buyer_details(&offer.buyer_name, &offer.buyer_email, lang)?;
        db::seasons::purchase(
            &state.pool,
            hold_id,
            offer.hold.buyer_id,
            &details,
            Default::default(),
        )
        .await
    }
    .await;
    let outcome = outcome.map(|_| crate::i18n::t("season-renewed"));
    back_with(&buyer, back, outcome).await
}

/// Give up: the places go back on sale now rather than at the deadline.
pub(crate) async fn give_up(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    buyer: Buyer,
    CsrfForm(form): CsrfForm<RenewalForm>,
) -> AppResult<Response> {
    let back = form.verified(&state, hold_id, "/give-up")?;
    let outcome = async {
        let offer = db::seasons::renewal_for_link(&state.pool.get().await?, hold_id).await?;
        db::seasons::release_hold(
            &state.pool,
            offer.hold.season_id,
            hold_id,
            offer.hold.buyer_id,
        )
        .await?;
        Ok(crate::i18n::t("season-given-up"))
    }
    .await;
    back_with(&buyer, back, outcome).await
}
