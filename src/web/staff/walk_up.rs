//! Walk-up sales: seats and general-admission places sold at the counter,
//! with their tender (cash, card or a comp and its reason).
//!
//! The cashier picks seats on the map (or types them, or asks for the best
//! N), reviews the sale with its total and tender, then sells. A refusal
//! shows the form again as it was typed, with the reason.

use std::collections::HashMap;

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::db;
use crate::db::best_available::{BestAvailableRequest, BestMode};
use crate::db::ga::GaAreaView;
use crate::db::order_changes::WalkUp;
use crate::db::promo_codes::AppliedCode;
use crate::domain::charges::Charges;
use crate::domain::hold::GaRequest;
use crate::domain::ids::{AreaId, EventId, SectionId};
use crate::domain::locale::EventLocale;
use crate::domain::price_type::{self, Choices, TypeOffer};
use crate::domain::rules;
use crate::domain::seat::Seat;
use crate::domain::seat::SeatIds;
use crate::domain::ticket::Tender;
use crate::error::Malformed;
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{Staff, floor::BoxOffice};
use crate::web::event_header::EventHeader;
use crate::web::extract::{IdPath, QueryInput};
use crate::web::map::SeatCanvas;
use crate::web::map_overview::Overview;
use crate::web::notices::{Notice, NoticeKind, take_notice};
use crate::web::render::render;
use crate::web::seat_view::TierLegend;
use crate::web::security::CsrfForm;
use crate::web::staff::console::{StaffMap, staff_map};
use crate::web::state::AppState;
use crate::words;

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/staff/events/{event_id}/walk-up",
        get(walk_up_page).post(walk_up_sale),
    )
}

struct AreaField {
    id: AreaId,
    name: String,
    left: i64,
    /// What the cashier typed, kept across a refusal.
    value: String,
}

/// What was typed, shown again as it was.
#[derive(Default)]
struct Typed {
    seats: String,
    name: String,
    email: String,
    tender: String,
    comp_reason: String,
    promo_code: String,
    /// Which tender is ticked.
    cash: bool,
    card: bool,
    comp: bool,
}

/// The sale as it would be made: each line's price, the total, the tender.
struct Review {
    lines: Vec<(String, String)>,
    /// Each seat's price type choice, when the event sells types.
    types: Vec<SeatTypes>,
    total: String,
    tender: String,
    /// What was reviewed, spelled out (seats, places, tender): "Sell and
    /// print" sends it back, and a sale that no longer matches is refused.
    token: String,
}

/// The sale as a review saw it, in one canonical line.
/// A seat's price type select in the review.
struct SeatTypes {
    seat_id: crate::domain::ids::SeatId,
    seat: String,
    /// (code, "Child · €25", chosen)
    options: Vec<(String, String, bool)>,
}

fn sale_token(
    seat_ids: &[crate::domain::ids::SeatId],
    ga: &[GaRequest],
    tender: &Typed,
    choices: &Choices,
    total: &str,
) -> String {
    let mut seats: Vec<i64> = seat_ids.iter().map(|id| id.0).collect();
    seats.sort_unstable();
    seats.dedup();
    let seats: Vec<String> = seats.iter().map(i64::to_string).collect();
    let places: Vec<String> = ga
        .iter()
        .map(|r| format!("{}x{}", r.area_id, r.quantity))
        .collect();
    let types: Vec<String> = choices
        .types
        .iter()
        .map(|(seat, kind)| format!("{seat}={kind}"))
        .collect();
    format!(
        "seats:{};places:{};tender:{};reason:{};types:{};code:{};total:{}",
        seats.join(","),
        places.join(","),
        tender.tender.trim(),
        tender.comp_reason.trim(),
        types.join(","),
        choices.promo_code.as_deref().unwrap_or(""),
        total
    )
}

#[derive(Template)]
#[template(path = "staff/walk_up.html")]
struct WalkUpPage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    event: EventHeader,
    notice: Option<Notice>,
    oob: bool,
    areas: Vec<AreaField>,
    typed: Typed,
    review: Option<Review>,
    canvas: Option<SeatCanvas>,
    overview: Option<Overview>,
    section_id: Option<SectionId>,
    tiers: Vec<TierLegend>,
    /// Best available's choices: party sizes, sections, tiers.
    counts: Vec<u32>,
    sections: Vec<String>,
    tier_choices: Vec<(String, String)>,
}

#[derive(serde::Deserialize, Default)]
pub(crate) struct WalkUpQuery {
    section: Option<SectionId>,
}

async fn walk_up_page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    QueryInput(query): QueryInput<WalkUpQuery>,
    staff: Staff<BoxOffice>,
) -> AppResult<Response> {
    let notice = take_notice(&staff.session).await?;
    let page = page(&state, event_id, &staff, query.section).await?;
    Ok(render(&WalkUpPage { notice, ..page })?.into_response())
}

/// The page with nothing typed.
async fn page(
    state: &AppState,
    event_id: EventId,
    staff: &crate::web::auth::StaffUser,
    section: Option<SectionId>,
) -> AppResult<WalkUpPage> {
    let event = crate::web::event_header::event_header(state, event_id).await?;
    let client = state.pool.get().await?;
    let areas = db::ga::areas(&client, event_id, None).await?;
    let tiers = db::events::tiers(&client, event_id).await?;
    let shapes = db::map::shapes(&client, event_id, None).await?;
    let page_path = format!("/staff/events/{event_id}/walk-up");
    let StaffMap { canvas, overview } =
        staff_map(state, &client, event_id, &tiers, section, &page_path).await?;
    let max = state.config.max_seats_per_hold;
    Ok(WalkUpPage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        event,
        notice: None,
        oob: false,
        areas: areas.into_iter().map(area_field).collect(),
        typed: Typed::default(),
        review: None,
        section_id: canvas.as_ref().and(section),
        canvas,
        overview,
        tiers: crate::web::seat_view::tier_legend(&tiers),
        counts: (1..=max).collect(),
        sections: shapes.sections.iter().map(|s| s.name.clone()).collect(),
        tier_choices: tiers
            .iter()
            .map(|t| {
                let price = t.currency.format(i64::from(t.price_cents));
                (t.code.clone(), format!("{} {price}", t.name))
            })
            .collect(),
    })
}

fn area_field(area: GaAreaView) -> AreaField {
    AreaField {
        id: area.id,
        name: area.name,
        left: area.available.max(0),
        value: "0".into(),
    }
}

/// The GA places asked for: `area_<id>` = places, each 0 to 100.
fn ga_requests(form: &HashMap<String, String>) -> AppResult<Vec<GaRequest>> {
    let mut ga = Vec::new();
    for (name, value) in form {
        let Some(area) = name.strip_prefix("area_") else {
            continue;
        };
        let value = value.trim();
        if value.is_empty() || value == "0" {
            continue;
        }
        let area_id: AreaId = area
            .parse()
            .map_err(|_| AppError::BadRequest(Malformed::FormField(name.to_string())))?;
        let too_many = || {
            AppError::Invalid(Invalid::CountOutOfRange {
                max: 100,
                of: crate::domain::refusal::Counted::Tickets,
            })
        };
        let quantity: u32 = value.parse().map_err(|_| too_many())?;
        if quantity > 100 {
            return Err(too_many());
        }
        ga.push(GaRequest { area_id, quantity });
    }
    ga.sort_by_key(|request| request.area_id);
    // "area_1" and "area_01" are one area named twice.
    if ga.windows(2).any(|pair| pair[0].area_id == pair[1].area_id) {
        return Err(AppError::Invalid(Invalid::DuplicateAreas));
    }
    Ok(ga)
}

/// What the form's `step` asks for. The form's "Sell and print" sends
/// `step=sell` with the review's token, and sells only what was reviewed;
/// a post without a step (a script, say) sells at once, as before the form
/// had a review.
enum Step {
    /// Fill the seats with best available's choice, and review them.
    Suggest,
    Review,
    Sell,
}

/// The walk-up form: fixed fields, and `area_<id>` = places per GA area.
async fn walk_up_sale(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<BoxOffice>,
    CsrfForm(form): CsrfForm<HashMap<String, String>>,
) -> AppResult<Response> {
    let field = |name: &str| form.get(name).map(String::as_str).unwrap_or("");
    let step = match field("step") {
        "suggest" => Step::Suggest,
        "review" => Step::Review,
        "sell" | "" => Step::Sell,
        _ => return Err(AppError::BadRequest(Malformed::FormField("step".into()))),
    };
    let section = field("section").parse::<SectionId>().ok();
    let mut typed = Typed {
        seats: field("seats").to_string(),
        name: field("name").to_string(),
        email: field("email").to_string(),
        tender: field("tender").to_string(),
        comp_reason: field("comp_reason").to_string(),
        promo_code: field("promo_code").to_string(),
        cash: field("tender") == "cash",
        card: field("tender") == "card",
        comp: field("tender") == "comp",
    };
    let outcome = async {
        if let Step::Suggest = step {
            let count = field("count").trim().parse::<i64>().unwrap_or(0);
            let count = rules::party_size(count, state.config.max_seats_per_hold)?;
            let wheelchair = match field("best_wheelchair").trim() {
                "" => 0,
                text => text.parse::<i64>().unwrap_or(-1),
            };
            let nonempty = |v: &str| Some(v.trim().to_string()).filter(|v| !v.is_empty());
            let request = BestAvailableRequest {
                count,
                section: nonempty(field("best_section")),
                tier: nonempty(field("best_tier")),
                together: field("apart").is_empty(),
                mode: BestMode::Add,
                wheelchair: rules::wheelchair_users(wheelchair, count)?,
                avoid_restricted_view: !field("best_clear_view").is_empty(),
            };
            let found = db::best_available::suggest(&state.pool, event_id, &request).await?;
            typed.seats = found
                .iter()
                .map(|seat| format!("{} {}{}", seat.section, seat.row_label, seat.seat_label))
                .collect::<Vec<_>>()
                .join(", ");
        }
        let ga = ga_requests(&form)?;
        let names = rules::seat_names(&typed.seats)?;
        let client = state.pool.get().await?;
        let seat_ids = db::order_changes::seats_named(&client, event_id, &names).await?;
        let buyer = rules::walk_up_buyer(&typed.name, &typed.email);
        let tender = Tender::parse(&typed.tender, &typed.comp_reason);
        // Types named for seats no longer in the sale are left out.
        let mut choices = Choices {
            types: price_type::form_choices(&form)?,
            promo_code: None,
        }
        .with_code(Some(typed.promo_code.as_str()));
        // GA places sell at the counter at their tiers' prices (no type).
        choices.types.retain(
            |place, _| matches!(place, price_type::Place::Seat(seat) if seat_ids.contains(seat)),
        );
        // The review, made for the sale too: each seat priced as the type
        // chosen for it (the default, the first open public type priced for
        // its tier, unless one is), less the code's discount, with the fee
        // and tax. A sale sells only what its review said, at its total.
        let mut seats = db::seats::by_ids(&client, event_id, &seat_ids, None).await?;
        let areas = db::ga::areas(&client, event_id, None).await?;
        let types = db::price_types::for_panel(&client, event_id).await?;
        let code = match &choices.promo_code {
            Some(code) => Some(db::promo_codes::preview(&client, event_id, code).await?),
            None => None,
        };
        let comp = matches!(tender, Ok(Tender::Comp { .. }));
        let priced = price_review(&mut seats, &types, &choices, code.as_ref(), comp)?;
        let locale = crate::web::event_header::event_header(&state, event_id)
            .await?
            .locale;
        let charges = db::charges::for_event(&client, event_id).await?;
        let mut review = review(
            &seats,
            &areas,
            &ga,
            tender.clone().ok(),
            (&locale, charges),
            &priced.discounts,
        );
        // The types the review sells each seat as, named: what the sale sells.
        let choices = Choices {
            types: priced.chosen,
            promo_code: choices.promo_code,
        };
        let token = sale_token(&seat_ids, &ga, &typed, &choices, &review.total);
        if let Step::Sell = step
            && field("step") == "sell"
            && field("reviewed") != token
        {
            return Err(AppError::Invalid(Invalid::SaleChangedSinceReview));
        }
        if let Step::Sell = step {
            let sale = WalkUp {
                seat_ids: SeatIds::new(seat_ids),
                ga,
                buyer: buyer?,
                tender: tender?,
                choices,
            };
            drop(client);
            let sold = db::order_changes::walk_up_sale(&state.pool, staff.actor(), event_id, &sale)
                .await?;
            return Ok(Err(sold));
        }
        review.token = token;
        review.types = priced.selects;
        if let Some(code) = code
            && let Some(discount) = review.lines.iter().position(|(line, _)| line == "Discount")
        {
            review.lines[discount].0 = format!("Discount {}", code.code);
        }
        Ok(Ok(review))
    }
    .await;
    let (review, refusal) = match outcome {
        Ok(Err(sold)) => {
            let location = format!("/staff/events/{event_id}/orders/{}", sold.order_id);
            let done = format!(
                "Sold {}. Print them now with “Print tickets”.",
                words::count(sold.tickets.len(), "ticket", "tickets")
            );
            return Ok(
                crate::web::notices::back_with_notice(&staff.session, &location, Ok(done))
                    .await?
                    .into_response(),
            );
        }
        Ok(Ok(review)) => (Some(review), None),
        Err(err) => (None, Some(err)),
    };
    let mut page = page(&state, event_id, &staff, section).await?;
    for area in &mut page.areas {
        if let Some(value) = form.get(&format!("area_{}", area.id)) {
            area.value = value.trim().to_string();
        }
    }
    page.typed = typed;
    page.review = review;
    let status = match &refusal {
        Some(err) => crate::web::error::status_of(err),
        None => StatusCode::OK,
    };
    page.notice = match refusal {
        Some(err) => Some(Notice::new(NoticeKind::Error, words::refusal_notice(err)?)),
        None => None,
    };
    Ok((status, render(&page)?).into_response())
}

/// What the review priced: the selects, each seat's discount, and the
/// type each seat is sold as (seats whose tier no type prices have none:
/// they sell at their tier's price).
struct PricedReview {
    selects: Vec<SeatTypes>,
    discounts: HashMap<crate::domain::ids::SeatId, i64>,
    chosen: std::collections::BTreeMap<price_type::Place, String>,
}

/// Prices each seat as the type chosen for it (or the default) and offers
/// the types its tier has, with each seat's discount under `code`. Refused
/// as the sale would refuse it: a type the seat can't be sold as, a code
/// on a comp, a code that applies to none of the seats.
fn price_review(
    seats: &mut [Seat],
    types: &[TypeOffer],
    choices: &Choices,
    code: Option<&AppliedCode>,
    comp: bool,
) -> AppResult<PricedReview> {
    if comp && code.is_some() {
        return Err(AppError::Invalid(Invalid::PromoCodeNotApplicable));
    }
    let unlocked = code.and_then(|code| code.unlocks.as_deref());
    let mut priced = PricedReview {
        selects: Vec::new(),
        discounts: HashMap::new(),
        chosen: std::collections::BTreeMap::new(),
    };
    let mut code_applies = false;
    for seat in seats.iter_mut() {
        let offered: Vec<&TypeOffer> = types
            .iter()
            .filter(|t| !t.hidden || unlocked == Some(t.code.as_str()))
            .filter(|t| t.prices.contains_key(&seat.tier_code))
            .collect();
        let chosen = match choices.types.get(&price_type::Place::Seat(seat.id)) {
            Some(named) => Some(
                offered
                    .iter()
                    .find(|t| t.code == *named)
                    .copied()
                    .ok_or_else(|| AppError::Invalid(Invalid::UnknownPriceType(named.clone())))?,
            ),
            None => offered
                .iter()
                .find(|t| !t.hidden && !t.needs_other)
                .copied(),
        };
        if let Some(kind) = chosen {
            if let Some(cents) = kind.prices.get(&seat.tier_code) {
                seat.price_cents = *cents;
            }
            seat.tier_name = format!("{} · {}", seat.tier_name, kind.label);
            priced
                .chosen
                .insert(price_type::Place::Seat(seat.id), kind.code.clone());
        }
        let applies = code.is_some_and(|code| match chosen {
            Some(kind) => code.applies_to(&kind.code),
            None => code.price_types.is_none(),
        });
        code_applies |= applies;
        let discount = match code {
            Some(code) if applies => i64::from(code.discount.off(seat.price_cents)),
            _ => 0,
        };
        priced.discounts.insert(seat.id, discount);
        if !offered.is_empty() {
            priced.selects.push(SeatTypes {
                seat_id: seat.id,
                seat: words::seat_name(seat),
                options: offered
                    .iter()
                    .map(|kind| {
                        let is_chosen = chosen.is_some_and(|c| c.code == kind.code);
                        (kind.code.clone(), kind.label.clone(), is_chosen)
                    })
                    .collect(),
            });
        }
    }
    if code.is_some() && !code_applies {
        return Err(AppError::Invalid(Invalid::PromoCodeNotApplicable));
    }
    Ok(priced)
}

/// The sale's lines with their prices, its booking fees and tax, its total,
/// and how it is paid (a comp is sold at nothing, without fees, and says
/// what it would have cost).
fn review(
    seats: &[Seat],
    areas: &[GaAreaView],
    ga: &[GaRequest],
    tender: Option<Tender>,
    (locale, charges): (&EventLocale, Charges),
    discounts: &HashMap<crate::domain::ids::SeatId, i64>,
) -> Review {
    let mut tickets: Vec<(i64, i64)> = Vec::new();
    let mut lines = Vec::new();
    for seat in seats {
        let discount = discounts.get(&seat.id).copied().unwrap_or(0);
        tickets.push((i64::from(seat.price_cents) - discount, discount));
        lines.push((
            format!("{} · {}", words::seat_name(seat), seat.tier_name),
            locale.price(seat.price_cents),
        ));
    }
    for request in ga {
        if let Some(area) = areas.iter().find(|a| a.id == request.area_id) {
            let cents = i64::from(area.price_cents) * i64::from(request.quantity);
            tickets.extend((0..request.quantity).map(|_| (i64::from(area.price_cents), 0)));
            lines.push((
                format!("{} × {} · {}", area.name, request.quantity, area.tier_name),
                locale.price(cents),
            ));
        }
    }
    let list_total: i64 = tickets
        .iter()
        .map(|(price, discount)| price + discount)
        .sum();
    let totals = charges.totals(&tickets);
    let comp = matches!(tender, Some(Tender::Comp { .. }));
    if !comp {
        if totals.discount_cents > 0 {
            lines.push((
                "Discount".into(),
                format!("−{}", locale.price(totals.discount_cents)),
            ));
        }
        if totals.fees_cents > 0 {
            lines.push(("Booking fees".into(), locale.price(totals.fees_cents)));
        }
        if let Some(tax) = charges.tax {
            let label = crate::i18n::receipt::tax_label(tax);
            lines.push((label, locale.price(totals.tax_cents)));
        }
    }
    let charged = locale.price(totals.total_cents);
    let (total, tender) = match tender {
        Some(Tender::Cash) => (charged, "cash".to_string()),
        Some(Tender::Card) => (charged, "card terminal".to_string()),
        Some(Tender::Comp { reason }) => (
            format!(
                "{} (comp; list price {})",
                locale.price(0),
                locale.price(list_total)
            ),
            format!("comp: {reason}"),
        ),
        None => (charged, "not chosen yet".to_string()),
    };
    Review {
        lines,
        types: Vec::new(),
        total,
        tender,
        token: String::new(),
    }
}
