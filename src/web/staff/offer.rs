//! The offer's page in the staff console: the event's booking fee and tax,
//! its price types (edited as one list, like the API's PUT), and its promo
//! codes with their uses, paused and resumed here. Forms that redirect
//! back with a notice; they work without JavaScript.

use std::collections::BTreeMap;

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{Html, Redirect};
use axum::routing::{get, post};
use serde::Deserialize;

use crate::db;
use crate::db::charges::ChargesChange;
use crate::db::price_types::PriceTypeView;
use crate::domain::charges::{self, Tax};
use crate::domain::ids::EventId;
use crate::domain::money::Currency;
use crate::domain::price_type::PriceTypeSpec;
use crate::domain::promo::{self, PromoSpec};
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{Staff, floor::BoxOffice, floor::Manager};
use crate::web::event_header::{EventHeader, event_header};
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, back_with_notice, take_notice};
use crate::web::render::render;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/events/{event_id}/offer", get(page))
        .route("/staff/events/{event_id}/offer/charges", post(set_charges))
        .route("/staff/events/{event_id}/offer/types", post(set_types))
        .route("/staff/events/{event_id}/offer/codes", post(create_code))
        .route(
            "/staff/events/{event_id}/offer/codes/{code}/pause",
            post(pause_code),
        )
}

/// One row of the types form: an existing type, or the blank one for a new.
struct TypeRow {
    index: usize,
    code: String,
    label: String,
    /// (tier code, tier name, price as typed) for each tier of the event.
    prices: Vec<(String, String, String)>,
    quota: String,
    max_per_order: String,
    requires: String,
    hidden: bool,
    closed: bool,
    sold: i32,
}

struct CodeRow {
    code: String,
    discount: String,
    uses: String,
    window: String,
    applies_to: String,
    unlocks: String,
    paused: bool,
}

#[derive(Template)]
#[template(path = "staff/offer.html")]
struct OfferPage {
    staff_bar: crate::web::auth::StaffBar,
    event: EventHeader,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
    fee: String,
    tax_rate: String,
    tax_included: bool,
    fees_refundable: bool,
    /// The tiers' names, for the price columns' headings.
    tier_names: Vec<String>,
    types: Vec<TypeRow>,
    codes: Vec<CodeRow>,
}

async fn page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<BoxOffice>,
) -> AppResult<Html<String>> {
    let event = event_header(&state, event_id).await?;
    let client = state.pool.get().await?;
    let (charges, types, codes, tiers) = tokio::join!(
        db::charges::for_event(&client, event_id),
        db::price_types::for_event(&client, event_id),
        db::promo_codes::for_event(&client, event_id),
        db::events::tiers(&client, event_id)
    );
    let (charges, types, codes, tiers) = (charges?, types?, codes?, tiers?);
    let currency = event.locale.currency;
    let decimal = |cents: i32| currency.decimal(i64::from(cents));
    let row = |index: usize, kind: Option<&PriceTypeView>| TypeRow {
        index,
        code: kind.map(|k| k.code.clone()).unwrap_or_default(),
        label: kind
            .and_then(|k| k.label.get("en").cloned())
            .unwrap_or_default(),
        prices: tiers
            .iter()
            .map(|tier| {
                let price = kind
                    .and_then(|k| k.prices.get(&tier.code))
                    .map(|c| decimal(*c));
                (
                    tier.code.clone(),
                    tier.name.clone(),
                    price.unwrap_or_default(),
                )
            })
            .collect(),
        quota: kind
            .and_then(|k| k.quota)
            .map(|q| q.to_string())
            .unwrap_or_default(),
        max_per_order: kind
            .and_then(|k| k.max_per_order)
            .map(|m| m.to_string())
            .unwrap_or_default(),
        requires: kind.and_then(|k| k.requires.clone()).unwrap_or_default(),
        hidden: kind.is_some_and(|k| k.visibility == "code"),
        closed: kind.is_some_and(|k| k.closed),
        sold: kind.map_or(0, |k| k.sold),
    };
    let mut rows: Vec<TypeRow> = types
        .iter()
        .enumerate()
        .map(|(i, k)| row(i, Some(k)))
        .collect();
    rows.push(row(types.len(), None));
    let locale = &event.locale;
    render(&OfferPage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        oob: false,
        fee: decimal(charges.booking_fee_cents),
        tax_rate: charges.tax.map(Tax::rate_text).unwrap_or_default(),
        tax_included: charges.tax.is_none_or(|tax| tax.included),
        fees_refundable: charges.fees_refundable,
        tier_names: tiers.iter().map(|tier| tier.name.clone()).collect(),
        types: rows,
        codes: codes
            .into_iter()
            .map(|code| CodeRow {
                discount: match (code.percent_off, code.amount_off_cents) {
                    (Some(percent), _) => format!("{percent} % off"),
                    (_, Some(cents)) => format!("{} off", locale.price(cents)),
                    _ => String::new(),
                },
                uses: match code.max_uses {
                    Some(max) => format!("{} of {max}", code.uses),
                    None => code.uses.to_string(),
                },
                window: match (code.valid_from, code.valid_until) {
                    (None, None) => "always".into(),
                    (from, until) => format!(
                        "{} – {}",
                        from.map(|t| locale.time(t)).unwrap_or_default(),
                        until.map(|t| locale.time(t)).unwrap_or_default()
                    ),
                },
                applies_to: code
                    .price_types
                    .map(|types| types.join(", "))
                    .unwrap_or_else(|| "every ticket".into()),
                unlocks: code.unlocks.unwrap_or_default(),
                paused: code.paused,
                code: code.code,
            })
            .collect(),
        event,
    })
}

#[derive(Deserialize)]
struct ChargesForm {
    #[serde(default)]
    fee: String,
    #[serde(default)]
    tax_rate: String,
    #[serde(default)]
    tax: String,
    #[serde(default)]
    fees_refundable: Option<String>,
}

async fn currency_of(state: &AppState, event_id: EventId) -> AppResult<Currency> {
    Ok(event_header(state, event_id).await?.locale.currency)
}

async fn set_charges(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<ChargesForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let currency = currency_of(&state, event_id).await?;
        let fee = match form.fee.trim() {
            "" => 0,
            typed => currency.parse(typed).ok_or_else(|| {
                AppError::Invalid(Invalid::Charges(
                    "the booking fee is an amount such as 1.50".into(),
                ))
            })?,
        };
        let tax = match form.tax_rate.trim() {
            "" => None,
            rate => Some(Tax::parse(rate, form.tax != "added")?),
        };
        let change = ChargesChange {
            booking_fee_cents: Some(charges::check_fee(i64::from(fee))?),
            tax: Some(tax),
            fees_refundable: Some(form.fees_refundable.is_some()),
        };
        db::charges::set(&state.pool, staff.actor(), event_id, change, None).await?;
        Ok("Booking fee and tax saved: orders from now on are charged so.".to_string())
    };
    let location = format!("/staff/events/{event_id}/offer");
    back_with_notice(&staff.session, &location, outcome.await).await
}

/// The types form's fields, by name: `code_0`, `label_0`, `price_0_<tier>`, …
#[derive(Deserialize)]
struct TypesForm {
    #[serde(flatten)]
    fields: BTreeMap<String, String>,
}

/// The list staff sent: each row with a code, in order; a row left blank
/// is not a type. Labels in other languages are kept from the type as it
/// was (the form edits the English one).
fn types_from_form(
    fields: &BTreeMap<String, String>,
    currency: Currency,
    tier_codes: &[String],
    before: &[PriceTypeView],
) -> AppResult<Vec<PriceTypeSpec>> {
    let field = |name: String| {
        fields
            .get(&name)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    let number = |text: String, what: &str, code: &str| -> AppResult<Option<i32>> {
        match text.as_str() {
            "" => Ok(None),
            typed => typed.parse::<i32>().map(Some).map_err(|_| {
                AppError::Invalid(Invalid::PriceType(format!(
                    "{code}: {what} is a whole number"
                )))
            }),
        }
    };
    // The rows sent, in the order shown: `code_0`, `code_1`, …
    let mut rows: Vec<usize> = fields
        .keys()
        .filter_map(|name| name.strip_prefix("code_")?.parse().ok())
        .collect();
    rows.sort_unstable();
    let mut specs = Vec::new();
    for index in rows {
        let code = field(format!("code_{index}"));
        if code.is_empty() {
            continue;
        }
        // Matched by the code the row had (`was_N`): a renamed type keeps
        // its labels in the other languages.
        let was = match field(format!("was_{index}")) {
            was if was.is_empty() => code.clone(),
            was => was,
        };
        let mut labels: BTreeMap<String, String> = before
            .iter()
            .find(|kind| kind.code == was)
            .map(|kind| kind.label.clone())
            .unwrap_or_default();
        labels.insert("en".into(), field(format!("label_{index}")));
        let mut prices = BTreeMap::new();
        for tier in tier_codes {
            let typed = field(format!("price_{index}_{tier}"));
            if typed.is_empty() {
                continue;
            }
            let cents = currency.parse(&typed).ok_or_else(|| {
                AppError::Invalid(Invalid::PriceType(format!(
                    "{code}: {typed:?} is not a price for {tier}"
                )))
            })?;
            prices.insert(tier.clone(), cents);
        }
        let requires = field(format!("requires_{index}"));
        specs.push(PriceTypeSpec {
            quota: number(field(format!("quota_{index}")), "the quota", &code)?,
            max_per_order: number(field(format!("max_{index}")), "the most an order", &code)?,
            closed: fields.contains_key(&format!("closed_{index}")),
            hidden: field(format!("visibility_{index}")) == "code",
            requires: (!requires.is_empty()).then_some(requires),
            code,
            labels,
            prices,
        });
    }
    Ok(specs)
}

async fn set_types(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<TypesForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let currency = currency_of(&state, event_id).await?;
        let (before, tiers) = {
            let client = state.pool.get().await?;
            let before = db::price_types::for_event(&client, event_id).await?;
            let tiers = db::events::tiers(&client, event_id).await?;
            (before, tiers)
        };
        let tier_codes: Vec<String> = tiers.into_iter().map(|tier| tier.code).collect();
        let specs = types_from_form(&form.fields, currency, &tier_codes, &before)?;
        let saved = db::price_types::replace(&state.pool, staff.actor(), event_id, &specs).await?;
        Ok(match saved.len() {
            0 => "The event sells no price types now: each seat at its tier's price.".to_string(),
            n => format!("{n} price type(s) saved."),
        })
    };
    let location = format!("/staff/events/{event_id}/offer#types");
    back_with_notice(&staff.session, &location, outcome.await).await
}

#[derive(Deserialize)]
struct CodeForm {
    code: String,
    /// "percent" or "amount".
    kind: String,
    value: String,
    #[serde(default)]
    max_uses: String,
    /// Type codes, comma-separated; blank: every ticket.
    #[serde(default)]
    price_types: String,
    #[serde(default)]
    unlocks: String,
}

async fn create_code(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<CodeForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let currency = currency_of(&state, event_id).await?;
        let bad = |text: &str| AppError::Invalid(Invalid::PromoCode(text.into()));
        let value = form.value.trim();
        let discount = match form.kind.as_str() {
            "percent" => promo::discount(
                Some(
                    value
                        .parse()
                        .map_err(|_| bad("the percentage is a whole number"))?,
                ),
                None,
            )?,
            _ => promo::discount(
                None,
                Some(i64::from(
                    currency
                        .parse(value)
                        .ok_or_else(|| bad("the amount is such as 5.00"))?,
                )),
            )?,
        };
        let max_uses = match form.max_uses.trim() {
            "" => None,
            typed => Some(
                typed
                    .parse::<i32>()
                    .map_err(|_| bad("max uses is a whole number"))?,
            ),
        };
        let types: Vec<String> = form
            .price_types
            .split(',')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect();
        let unlocks = form.unlocks.trim();
        let spec = PromoSpec {
            code: form.code.trim().to_string(),
            discount,
            max_uses,
            valid_from: None,
            valid_until: None,
            price_types: (!types.is_empty()).then_some(types),
            unlocks: (!unlocks.is_empty()).then(|| unlocks.to_string()),
        };
        let made = db::promo_codes::create(&state.pool, staff.actor(), event_id, &spec).await?;
        Ok(format!("Code {} made.", made.code))
    };
    let location = format!("/staff/events/{event_id}/offer#codes");
    back_with_notice(&staff.session, &location, outcome.await).await
}

#[derive(Deserialize)]
struct PauseForm {
    /// "true" pauses, anything else resumes.
    paused: String,
}

async fn pause_code(
    State(state): State<AppState>,
    IdPath((event_id, code)): IdPath<(EventId, String)>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<PauseForm>,
) -> AppResult<Redirect> {
    let paused = form.paused == "true";
    let outcome = db::promo_codes::set_paused(&state.pool, staff.actor(), event_id, &code, paused)
        .await
        .map(|code| match paused {
            true => format!(
                "Code {} paused: buyers can't use it until it is resumed.",
                code.code
            ),
            false => format!("Code {} resumed.", code.code),
        });
    let location = format!("/staff/events/{event_id}/offer#codes");
    back_with_notice(&staff.session, &location, outcome).await
}
