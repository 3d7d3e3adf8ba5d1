//! Staff accounts, for admins: add, change the role of, disable, enable,
//! and reset the password of an account. Every change is audited in its
//! own transaction (`db::staff::change`); the page lists the latest.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use crate::db;
use crate::db::staff::Change;
use crate::domain::ids::StaffId;
use crate::domain::password;
use crate::domain::role::Role;
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{Staff, floor::Admin};
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, back_with_notice, take_notice};
use crate::web::render::render;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;
use crate::words;

const PAGE: &str = "/staff/accounts";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/accounts", get(page).post(add))
        .route("/staff/accounts/{staff_id}/role", post(set_role))
        .route("/staff/accounts/{staff_id}/disable", post(disable))
        .route("/staff/accounts/{staff_id}/enable", post(enable))
        .route("/staff/accounts/{staff_id}/password", post(reset_password))
}

struct AccountRow {
    id: StaffId,
    name: String,
    role: &'static str,
    created: String,
    disabled: Option<String>,
    is_me: bool,
}

struct RoleChoice {
    value: &'static str,
    label: &'static str,
}

struct ChangeRow {
    at: String,
    by: String,
    detail: String,
}

#[derive(Template)]
#[template(path = "staff/accounts.html")]
struct AccountsPage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
    accounts: Vec<AccountRow>,
    roles: Vec<RoleChoice>,
    changes: Vec<ChangeRow>,
    min_password: usize,
}

async fn page(State(state): State<AppState>, staff: Staff<Admin>) -> AppResult<Response> {
    let client = state.pool.get().await?;
    let accounts = db::staff::list(&client).await?;
    let changes = db::staff::recent_changes(&client).await?;
    Ok(render(&AccountsPage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        oob: false,
        accounts: accounts
            .into_iter()
            .map(|a| AccountRow {
                is_me: a.id == staff.id,
                id: a.id,
                name: a.name,
                role: a.role.as_str(),
                created: words::display_time(a.created_at),
                disabled: a.disabled_at.map(words::display_time),
            })
            .collect(),
        roles: Role::ALL
            .into_iter()
            .map(|role| RoleChoice {
                value: role.as_str(),
                label: role.label(),
            })
            .collect(),
        changes: changes
            .into_iter()
            .map(|c| ChangeRow {
                at: words::display_time(c.at),
                by: c.by.unwrap_or_else(|| "command line".into()),
                detail: c.detail,
            })
            .collect(),
        min_password: password::MIN_PASSWORD_CHARS,
    })?
    .into_response())
}

fn role_from(name: &str) -> AppResult<Role> {
    Role::parse(name).ok_or(AppError::Invalid(Invalid::Role))
}

/// argon2 off the async runtime; a short password is a 422.
async fn hashed(new_password: String) -> AppResult<String> {
    if new_password.chars().count() < password::MIN_PASSWORD_CHARS {
        return Err(AppError::Invalid(Invalid::PasswordLength));
    }
    if new_password.len() > 1024 {
        return Err(AppError::Invalid(Invalid::PasswordLength));
    }
    tokio::task::spawn_blocking(move || password::hash(&new_password))
        .await
        .map_err(|e| AppError::Internal(e.into()))?
        .map_err(AppError::Internal)
}

#[derive(Deserialize)]
struct AddForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    role: String,
    #[serde(default)]
    password: String,
}

async fn add(
    State(state): State<AppState>,
    staff: Staff<Admin>,
    CsrfForm(form): CsrfForm<AddForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let name = form.name.trim();
        if !password::valid_staff_name(name) {
            return Err(AppError::Invalid(Invalid::StaffName));
        }
        let role = role_from(&form.role)?;
        let hash = hashed(form.password.clone()).await?;
        db::in_transaction(&state.pool, async |tx| {
            let id = db::staff::create(tx, name, &hash, role).await?;
            db::staff::audit(
                tx,
                Some(staff.id),
                id,
                "staff_created",
                &format!("{name} created as {role}"),
            )
            .await
        })
        .await?;
        Ok(format!("{name} can sign in now, as {role}."))
    }
    .await;
    back_with_notice(&staff.session, PAGE, outcome).await
}

async fn apply(
    state: &AppState,
    staff: &crate::web::auth::StaffUser,
    subject: StaffId,
    change: Change<'_>,
    done: &str,
) -> AppResult<Redirect> {
    let outcome = db::in_transaction(&state.pool, async |tx| {
        db::staff::change(tx, staff.id, subject, change).await
    })
    .await
    .map(|()| done.to_string());
    back_with_notice(&staff.session, PAGE, outcome).await
}

#[derive(Deserialize)]
struct RoleForm {
    #[serde(default)]
    role: String,
}

async fn set_role(
    State(state): State<AppState>,
    IdPath(subject): IdPath<StaffId>,
    staff: Staff<Admin>,
    CsrfForm(form): CsrfForm<RoleForm>,
) -> AppResult<Response> {
    let role = match role_from(&form.role) {
        Ok(role) => role,
        Err(err) => {
            return Ok(back_with_notice(&staff.session, PAGE, Err(err))
                .await?
                .into_response());
        }
    };
    Ok(apply(
        &state,
        &staff,
        subject,
        Change::Role(role),
        &format!("Role changed to {role}."),
    )
    .await?
    .into_response())
}

async fn disable(
    State(state): State<AppState>,
    IdPath(subject): IdPath<StaffId>,
    staff: Staff<Admin>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    apply(
        &state,
        &staff,
        subject,
        Change::Disable,
        "Account disabled: it is signed out everywhere and can't sign in.",
    )
    .await
}

async fn enable(
    State(state): State<AppState>,
    IdPath(subject): IdPath<StaffId>,
    staff: Staff<Admin>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    apply(&state, &staff, subject, Change::Enable, "Account enabled.").await
}

#[derive(Deserialize)]
struct PasswordForm {
    #[serde(default)]
    password: String,
}

async fn reset_password(
    State(state): State<AppState>,
    IdPath(subject): IdPath<StaffId>,
    staff: Staff<Admin>,
    CsrfForm(form): CsrfForm<PasswordForm>,
) -> AppResult<Redirect> {
    let hash = match hashed(form.password).await {
        Ok(hash) => hash,
        Err(err) => return back_with_notice(&staff.session, PAGE, Err(err)).await,
    };
    let back = apply(
        &state,
        &staff,
        subject,
        Change::Password(&hash),
        "Password reset: the account's other sessions have ended.",
    )
    .await?;
    // One's own reset ends one's other sessions, not this one.
    if subject == staff.id {
        let version = db::staff::credentials_version(&state.pool.get().await?, staff.id).await?;
        crate::web::auth::sign_in(&staff.session, staff.id, version).await?;
    }
    Ok(back)
}
