//! The waitlist, for buyers: joining (the API, and the sold-out event
//! page's form), the signed page a party's e-mails link to (its place, its
//! offer, leaving, rejoining), and leaving through the API. Staff see and
//! steer it in `web::staff::waitlist`.

use askama::Template;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::db::waitlist::{Entry, JoinRequest, WaitlistClient};
use crate::domain::email::Email;
use crate::domain::ids::{EventId, WaitlistEntryId};
use crate::domain::rules as input_rules;
use crate::domain::signed_link::SignedAccess;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::i18n::{t, t1};
use crate::web::admission::admit_hold_request;
use crate::web::auth::{ApiBuyer, Buyer};
use crate::web::error::responses;
use crate::web::extract::ClientIp;
use crate::web::extract::{ApiJson, IdPath, QueryInput};
use crate::web::render::render;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(join_json))
        .routes(routes!(leave_json))
}

use crate::domain::money::MAX_PRICE_CENTS;

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct JoinBody {
    /// How many seats the party needs (1 to the per-hold limit). Signed
    /// and wide, so that 0, -3 or 10^12 get a 422 rather than a 400.
    #[serde(deserialize_with = "crate::web::json_int::one")]
    #[schema(minimum = 1, maximum = 100)]
    count: i64,
    /// Whether the seats must be side by side in one row (default true).
    #[serde(default = "yes")]
    together: bool,
    /// Only seats in this section (its name, as the seat listing gives it).
    #[serde(default)]
    section: Option<String>,
    /// Only seats of this price tier (its code).
    #[serde(default)]
    tier: Option<String>,
    /// Only seats at or under this price.
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(minimum = 0, maximum = 100000000)]
    max_price_cents: Option<i64>,
    #[schema(format = Email, max_length = 254)]
    email: String,
}

fn yes() -> bool {
    true
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct JoinedJson {
    #[schema(value_type = uuid::Uuid)]
    entry_id: WaitlistEntryId,
    /// The party's place: 1 is next.
    position: i64,
    /// "unconfirmed": the place gets offers once the address given is
    /// confirmed from the link in the mail just sent; "waiting" where no
    /// mail is configured (nothing to confirm with).
    status: &'static str,
}

struct Joining {
    count: i64,
    together: bool,
    section: Option<String>,
    tier: Option<String>,
    max_price_cents: Option<i64>,
    email: String,
}

async fn join(
    state: &AppState,
    event_id: EventId,
    buyer: crate::domain::ids::BuyerId,
    client: WaitlistClient,
    joining: Joining,
) -> AppResult<db::waitlist::Joined> {
    let party_size = input_rules::party_size(joining.count, state.config.max_seats_per_hold)?;
    let email = Email::parse(&joining.email).ok_or(AppError::Invalid(Invalid::Email))?;
    let max_price_cents = match joining.max_price_cents {
        None => None,
        Some(cents @ 0..=MAX_PRICE_CENTS) => Some(cents as i32),
        Some(_) => return Err(AppError::Invalid(Invalid::MaxPrice)),
    };
    let (section_id, tier_id) = {
        let client = state.pool.get().await?;
        db::waitlist::resolve_scope(
            &client,
            event_id,
            joining.section.as_deref(),
            joining.tier.as_deref(),
        )
        .await?
    };
    db::waitlist::join(
        &state.pool,
        event_id,
        &JoinRequest {
            party_size: party_size as i32,
            together: joining.together,
            section_id,
            tier_id,
            max_price_cents,
            email: email.as_str().to_string(),
            lang: crate::i18n::current(),
            buyer_id: buyer,
            client,
            max_per_client: state.config.waitlist.entries_per_client,
            // Without mail there is no link to confirm with: a place
            // waits confirmed (the per-client cap still holds).
            needs_confirming: state.config.mail.smtp_url.is_some(),
        },
    )
    .await
}

/// Joins the event's waitlist. Only when it is sold out for what the
/// party would take (`409 not_sold_out` otherwise, with how many seats
/// are free). The party is e-mailed its place and a link that confirms the
/// address; only a confirmed place gets offers. One address (an IPv6 /64
/// as one), or one API key, has at most `SEATMAP_WAITLIST_ENTRIES_PER_ADDRESS`
/// places on an event's list (`429 too_many_entries`).
#[utoipa::path(post, path = "/api/events/{event_id}/waitlist", tag = "buyers",
    params(("event_id" = i64, Path)), request_body = JoinBody,
    responses(
        (status = 201, description = "On the waitlist", body = JoinedJson),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFound,
        responses::Conflict,
        responses::TooManyRequests,
        responses::Unprocessable,))]
pub(crate) async fn join_json(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    ip: ClientIp,
    buyer: ApiBuyer,
    pass: crate::web::queue::gate::QueuePass,
    ApiJson(body): ApiJson<JoinBody>,
) -> AppResult<Response> {
    crate::web::queue::gate::admit(&state, event_id, &pass, Some(buyer.id)).await?;
    // Joining counts as a hold request: the same limits per buyer, address
    // and key (a flood of entries would be a flood of offers).
    admit_hold_request(&state, buyer.id, buyer.key, ip).await?;
    // A key's customers count against the key; a browser's joins against
    // its address.
    let client = match buyer.key {
        Some(key) => WaitlistClient::Key(key),
        None => WaitlistClient::Network(ip.network()),
    };
    let joined = join(
        &state,
        event_id,
        buyer.id,
        client,
        Joining {
            count: body.count,
            together: body.together,
            section: body.section,
            tier: body.tier,
            max_price_cents: body.max_price_cents,
            email: body.email,
        },
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(JoinedJson {
            entry_id: joined.entry_id,
            position: joined.position,
            status: if joined.unconfirmed {
                "unconfirmed"
            } else {
                "waiting"
            },
        }),
    )
        .into_response())
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct LeftJson {
    #[schema(value_type = uuid::Uuid)]
    entry_id: WaitlistEntryId,
    /// "left", or what the place had come to ("accepted", "lapsed").
    status: String,
}

/// Leaves the waitlist (the caller who joined). A party holding an offer
/// gives its seats back. Leaving twice is leaving once.
#[utoipa::path(delete, path = "/api/events/{event_id}/waitlist/{entry_id}", tag = "buyers",
    params(("event_id" = i64, Path), ("entry_id" = Uuid, Path)),
    responses(
        (status = 200, description = "Off the waitlist", body = LeftJson),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFoundOrNotYours,))]
pub(crate) async fn leave_json(
    State(state): State<AppState>,
    IdPath((event_id, entry_id)): IdPath<(EventId, WaitlistEntryId)>,
    buyer: ApiBuyer,
) -> AppResult<Json<LeftJson>> {
    let entry = db::waitlist::find(&state.pool.get().await?, entry_id).await?;
    if entry.event_id != event_id || entry.buyer_id != buyer.id {
        return Err(AppError::NotFound(Missing::WaitlistEntry));
    }
    let left = db::waitlist::leave(&state.pool, entry_id).await?;
    Ok(Json(LeftJson {
        entry_id,
        status: left.status,
    }))
}

// ---- Pages ------------------------------------------------------------

#[derive(Deserialize)]
pub(crate) struct JoinForm {
    #[serde(default)]
    count: String,
    #[serde(default)]
    together: Option<String>,
    #[serde(default)]
    email: String,
}

/// The sold-out event page's form: joins, then shows the party's page.
pub(crate) async fn join_form(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    ip: ClientIp,
    buyer: Buyer,
    pass: crate::web::queue::gate::QueuePass,
    CsrfForm(form): CsrfForm<JoinForm>,
) -> AppResult<Response> {
    crate::web::queue::gate::admit(&state, event_id, &pass, Some(buyer.id)).await?;
    admit_hold_request(&state, buyer.id, None, ip).await?;
    let count = form.count.trim().parse::<i64>().map_err(|_| {
        AppError::Invalid(Invalid::CountOutOfRange {
            max: state.config.max_seats_per_hold,
            of: crate::domain::refusal::Counted::Seats,
        })
    })?;
    let joined = join(
        &state,
        event_id,
        buyer.id,
        WaitlistClient::Network(ip.network()),
        Joining {
            count,
            together: form.together.is_some(),
            section: None,
            tier: None,
            max_price_cents: None,
            email: form.email,
        },
    )
    .await?;
    Ok(Redirect::to(&entry_path(&state, joined.entry_id, "")).into_response())
}

/// A party's page or action path, signed for as long as the event can
/// matter (a month).
fn entry_path(state: &AppState, entry_id: WaitlistEntryId, suffix: &str) -> String {
    let until = OffsetDateTime::now_utc() + time::Duration::days(30);
    let SignedAccess { until, sig } = state.links.key.sign_waitlist(entry_id, suffix, until);
    format!("/waitlist/{entry_id}{suffix}?until={until}&sig={sig}")
}

#[derive(Deserialize)]
pub(crate) struct Signed {
    until: Option<i64>,
    sig: Option<String>,
}

/// The entry the signed query opens; 404 for a bad or old signature (as
/// for an entry that doesn't exist: a link says nothing it doesn't open).
async fn signed_entry(
    state: &AppState,
    entry_id: WaitlistEntryId,
    action: &str,
    signed: &Signed,
) -> AppResult<Entry> {
    let opens = match (signed.until, signed.sig.as_ref()) {
        (Some(until), Some(sig)) => state.links.key.verify_waitlist(
            entry_id,
            action,
            &SignedAccess {
                until,
                sig: sig.clone(),
            },
            OffsetDateTime::now_utc(),
        ),
        _ => false,
    };
    if !opens {
        return Err(AppError::NotFound(Missing::WaitlistEntry));
    }
    db::waitlist::find(&state.pool.get().await?, entry_id).await
}

#[derive(Template)]
#[template(path = "events/waitlist.html")]
struct EntryPage {
    event_id: EventId,
    title: String,
    csrf: String,
    party: String,
    status_text: String,
    offer_url: Option<String>,
    offer_until: Option<String>,
    leave_url: Option<String>,
    rejoin_url: Option<String>,
}

/// The party's own page: its place, an offer out (with its link), and
/// leaving or rejoining.
pub(crate) async fn entry_page(
    State(state): State<AppState>,
    IdPath(entry_id): IdPath<WaitlistEntryId>,
    QueryInput(signed): QueryInput<Signed>,
    viewer: crate::web::auth::Viewer,
) -> AppResult<Html<String>> {
    let entry = signed_entry(&state, entry_id, "", &signed).await?;
    let client = state.pool.get().await?;
    let event = db::events::find(&client, entry.event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    let live = matches!(entry.status.as_str(), "waiting" | "offered");
    let position = match entry.status.as_str() {
        "waiting" => Some(db::waitlist::position(&client, entry_id).await?),
        _ => None,
    };
    let status_text = match entry.status.as_str() {
        "waiting" if entry.confirmed_at.is_none() => t("waitlist-unconfirmed"),
        "waiting" => t1("waitlist-waiting", "position", position.unwrap_or(0)),
        "offered" => t("waitlist-offered"),
        "accepted" => t("waitlist-accepted"),
        "lapsed" => t("waitlist-lapsed"),
        _ => t("waitlist-left"),
    };
    render(&EntryPage {
        event_id: entry.event_id,
        title: t1("waitlist-title", "event", &event.name),
        csrf: viewer.csrf.value(),
        party: t1("waitlist-party", "count", entry.party_size),
        status_text,
        offer_url: (entry.status == "offered").then(|| entry_path(&state, entry_id, "/offer")),
        offer_until: entry
            .offer_expires_at
            .filter(|_| entry.status == "offered")
            .map(|at| locale.time(at)),
        leave_url: live.then(|| entry_path(&state, entry_id, "/leave")),
        rejoin_url: (entry.status == "lapsed" && !entry.is_rejoin && !entry.rejoined)
            .then(|| entry_path(&state, entry_id, "/rejoin")),
    })
}

/// The party page's button (a POST, so a mail scanner following links
/// takes nothing): the offer's hold becomes this browser's, and the event
/// page shows it, ready to buy.
pub(crate) async fn take_offer(
    State(state): State<AppState>,
    IdPath(entry_id): IdPath<WaitlistEntryId>,
    QueryInput(signed): QueryInput<Signed>,
    buyer: Buyer,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Response> {
    let entry = signed_entry(&state, entry_id, "/offer", &signed).await?;
    let entry = db::waitlist::take_offer(&state.pool, entry.id, buyer.id).await?;
    if entry.status != "offered" {
        return Ok(Redirect::to(&entry_path(&state, entry_id, "")).into_response());
    }
    Ok(Redirect::to(&format!("/events/{}", entry.event_id)).into_response())
}

#[derive(Template)]
#[template(path = "events/waitlist_confirm.html")]
struct ConfirmPage {
    title: String,
    csrf: String,
    confirm_url: String,
    confirmed: bool,
}

/// The page the joining mail's link opens: a button that confirms the
/// address (a POST, so a mail scanner following links confirms nothing).
pub(crate) async fn confirm_page(
    State(state): State<AppState>,
    IdPath(entry_id): IdPath<WaitlistEntryId>,
    QueryInput(signed): QueryInput<Signed>,
    viewer: crate::web::auth::Viewer,
) -> AppResult<Html<String>> {
    let entry = signed_entry(&state, entry_id, "/confirm", &signed).await?;
    let event = db::events::find(&state.pool.get().await?, entry.event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    render(&ConfirmPage {
        title: t1("waitlist-title", "event", &event.name),
        csrf: viewer.csrf.value(),
        confirm_url: entry_path(&state, entry_id, "/confirm"),
        confirmed: entry.confirmed_at.is_some(),
    })
}

pub(crate) async fn confirm_form(
    State(state): State<AppState>,
    IdPath(entry_id): IdPath<WaitlistEntryId>,
    QueryInput(signed): QueryInput<Signed>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Response> {
    let entry = signed_entry(&state, entry_id, "/confirm", &signed).await?;
    db::waitlist::confirm(&state.pool, entry.id).await?;
    Ok(Redirect::to(&entry_path(&state, entry_id, "")).into_response())
}

pub(crate) async fn leave_form(
    State(state): State<AppState>,
    IdPath(entry_id): IdPath<WaitlistEntryId>,
    QueryInput(signed): QueryInput<Signed>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Response> {
    let entry = signed_entry(&state, entry_id, "/leave", &signed).await?;
    db::waitlist::leave(&state.pool, entry.id).await?;
    Ok(Redirect::to(&entry_path(&state, entry_id, "")).into_response())
}

pub(crate) async fn rejoin_form(
    State(state): State<AppState>,
    IdPath(entry_id): IdPath<WaitlistEntryId>,
    QueryInput(signed): QueryInput<Signed>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Response> {
    let entry = signed_entry(&state, entry_id, "/rejoin", &signed).await?;
    let joined = db::waitlist::rejoin(&state.pool, entry.id).await?;
    Ok(Redirect::to(&entry_path(&state, joined.entry_id, "")).into_response())
}
