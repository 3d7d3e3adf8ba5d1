//! Who is asking: the buyer's session, staff signed in, or another server
//! with an API key (and the customer it names); signing staff in and out.

use crate::domain::api_key::{self, Scope};
use crate::domain::ids::{Actor, ApiKeyId, BuyerId, StaffId};
use crate::domain::role::Role;
use crate::error::AppError;
use crate::error::Denied;
use crate::web::security::CsrfToken;
use crate::web::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use tower_sessions::Session;
use uuid::Uuid;

use crate::web::session::{session_error, session_from};

const BUYER_KEY: &str = "buyer_id";

/// The caller as a buyer. The id lives in the session data rather than
/// being the session id, so it survives session-id rotation. Created (and
/// the cookie set) on first use.
pub struct Buyer {
    pub id: BuyerId,
    pub session: Session,
    /// The id was made by this request: the session is new, and a live
    /// stream the page opened before it doesn't know whose seats are whose.
    pub is_new: bool,
    pub csrf: CsrfToken,
}

impl<S: Send + Sync> FromRequestParts<S> for Buyer {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Buyer, AppError> {
        let session = session_from(parts).await?;
        let csrf = CsrfToken::from_request_parts(parts, state).await?;
        let (id, is_new) = match session
            .get::<BuyerId>(BUYER_KEY)
            .await
            .map_err(session_error)?
        {
            Some(id) => (id, false),
            None => {
                let id = BuyerId(Uuid::new_v4());
                session.insert(BUYER_KEY, id).await.map_err(session_error)?;
                (id, true)
            }
        };
        Ok(Buyer {
            id,
            session,
            is_new,
            csrf,
        })
    }
}

/// The caller, if they already have a buyer id; never creates a session.
pub struct Viewer {
    pub buyer_id: Option<BuyerId>,
    pub session: Session,
    pub csrf: CsrfToken,
}

impl<S: Send + Sync> FromRequestParts<S> for Viewer {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Viewer, AppError> {
        let session = session_from(parts).await?;
        let csrf = CsrfToken::from_request_parts(parts, state).await?;
        let buyer_id = session
            .get::<BuyerId>(BUYER_KEY)
            .await
            .map_err(session_error)?;
        Ok(Viewer {
            buyer_id,
            session,
            csrf,
        })
    }
}

const STAFF_KEY: &str = "staff_id";
/// The account's credentials version when this session signed in: a
/// password reset raises it, which ends the session.
const STAFF_VERSION_KEY: &str = "staff_credentials_version";

/// The session's member of staff, if one is signed in and their account
/// still lets them (not disabled, password not reset since).
pub async fn signed_in_staff(
    state: &AppState,
    session: &Session,
) -> Result<Option<(StaffId, crate::db::staff::SignedIn)>, AppError> {
    let Some(staff_id) = session
        .get::<StaffId>(STAFF_KEY)
        .await
        .map_err(session_error)?
    else {
        return Ok(None);
    };
    let version = session
        .get::<i32>(STAFF_VERSION_KEY)
        .await
        .map_err(session_error)?
        .unwrap_or(0);
    let client = state.pool.get().await?;
    let account = crate::db::staff::signed_in(&client, staff_id, version).await?;
    Ok(account.map(|account| (staff_id, account)))
}

/// A signed-in member of staff, whatever their role. Only the login
/// handler ever puts a staff id in a session, so a buyer's session never
/// gains staff rights. A handler never takes this directly: it takes
/// [`Staff`] with the least role it needs, so every staff route says its
/// role (the compiler sees to it) and the role is checked before the
/// handler runs, so a refusal writes nothing.
pub struct StaffUser {
    pub id: StaffId,
    pub name: String,
    pub role: Role,
    pub session: Session,
    pub csrf: CsrfToken,
}

impl StaffUser {
    /// 401 for no staff session, or one whose account was disabled or
    /// whose password was reset since (HTML pages turn 401 into a
    /// redirect to the login page).
    async fn from_session(parts: &mut Parts, state: &AppState) -> Result<StaffUser, AppError> {
        let session = session_from(parts).await?;
        let csrf = CsrfToken::from_request_parts(parts, state).await?;
        let (staff_id, account) = signed_in_staff(state, &session)
            .await?
            .ok_or(AppError::Unauthorized)?;
        Ok(StaffUser {
            id: staff_id,
            name: account.name,
            role: account.role,
            session,
            csrf,
        })
    }

    pub fn actor(&self) -> Actor {
        Actor::Staff(self.id)
    }

    /// What the staff pages' bar shows: who, and the links their role
    /// may follow.
    pub fn bar(&self) -> StaffBar {
        StaffBar {
            name: self.name.clone(),
            role: self.role.label(),
            csrf: self.csrf.value(),
            manager: self.role.covers(Role::Manager),
            admin: self.role.covers(Role::Admin),
        }
    }
}

/// The staff pages' bar (templates/staff/_header.html).
pub struct StaffBar {
    pub name: String,
    pub role: &'static str,
    pub csrf: String,
    /// Venues, webhooks, refunds and the event's settings are shown.
    pub manager: bool,
    /// Staff accounts are shown.
    pub admin: bool,
}

/// The least role a route needs, as a type: `Staff<BoxOffice>`.
pub trait RoleFloor: Send + Sync + 'static {
    const ROLE: Role;
}

/// The roles as types, for [`Staff`] and [`StaffCaller`].
pub mod floor {
    use crate::domain::role::Role;
    use crate::web::auth::RoleFloor;

    pub struct Door;
    pub struct BoxOffice;
    pub struct Manager;
    pub struct Admin;

    impl RoleFloor for Door {
        const ROLE: Role = Role::Door;
    }
    impl RoleFloor for BoxOffice {
        const ROLE: Role = Role::BoxOffice;
    }
    impl RoleFloor for Manager {
        const ROLE: Role = Role::Manager;
    }
    impl RoleFloor for Admin {
        const ROLE: Role = Role::Admin;
    }
}

fn needs_role(has: Role, needs: Role) -> Result<(), AppError> {
    if has.covers(needs) {
        Ok(())
    } else {
        Err(AppError::Forbidden(Denied::Role { has, needs }))
    }
}

/// A signed-in member of staff whose role reaches `F`: 401 without a
/// staff session, 403 for a role below it.
pub struct Staff<F: RoleFloor> {
    user: StaffUser,
    floor: std::marker::PhantomData<F>,
}

impl<F: RoleFloor> std::ops::Deref for Staff<F> {
    type Target = StaffUser;

    fn deref(&self) -> &StaffUser {
        &self.user
    }
}

impl<F: RoleFloor> Staff<F> {
    pub fn into_user(self) -> StaffUser {
        self.user
    }
}

impl<F: RoleFloor> FromRequestParts<AppState> for Staff<F> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Staff<F>, AppError> {
        let user = StaffUser::from_session(parts, state).await?;
        needs_role(user.role, F::ROLE)?;
        Ok(Staff {
            user,
            floor: std::marker::PhantomData,
        })
    }
}

/// Checks the key a request bears (`Authorization: Bearer <key>`), on
/// every route: a malformed, unknown or revoked key is a 401, never a
/// fall-back to the session or to anonymous access. A good key is left in
/// the request's extensions for the extractors below.
pub async fn authenticate_bearer(
    axum::extract::State(state): axum::extract::State<AppState>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    // The metrics scraper's bearer token is its own (SEATMAP_METRICS_TOKEN).
    if request.uri().path() == "/metrics" {
        return next.run(request).await;
    }
    let Some(header) = request.headers().get(axum::http::header::AUTHORIZATION) else {
        return next.run(request).await;
    };
    let key = header
        .to_str()
        .ok()
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|key| api_key::well_formed(key))
        .map(api_key::hash);
    let found = match key {
        Some(hash) => match state.pool.get().await {
            Ok(client) => crate::db::api_keys::authenticate(&client, &hash).await,
            Err(err) => Err(err.into()),
        },
        None => Ok(None),
    };
    match found {
        Ok(Some(key)) => {
            request.extensions_mut().insert(key);
            next.run(request).await
        }
        Ok(None) => AppError::InvalidApiKey.into_response(),
        Err(err) => err.into_response(),
    }
}

/// The id of the API key the request bears, if any: what a limit counts a
/// key's caller as, where no scope is needed (joining a waiting room).
#[derive(Debug, Clone, Copy)]
pub struct BearerKeyId(pub Option<ApiKeyId>);

impl FromRequestParts<AppState> for BearerKeyId {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        _state: &AppState,
    ) -> Result<BearerKeyId, Self::Rejection> {
        Ok(BearerKeyId(bearer_key(parts).map(|key| key.id)))
    }
}

/// The key the request bears, as [`authenticate_bearer`] found it.
fn bearer_key(parts: &Parts) -> Option<crate::db::api_keys::ApiKey> {
    parts
        .extensions
        .get::<crate::db::api_keys::ApiKey>()
        .cloned()
}

fn needs_scope(key: &crate::db::api_keys::ApiKey, scope: Scope) -> Result<(), AppError> {
    if key.scope == scope {
        Ok(())
    } else {
        Err(AppError::Forbidden(Denied::KeyScope {
            has: key.scope.as_str(),
            needs: scope.as_str(),
        }))
    }
}

/// A staff key whose role reaches `needs`: judged as a login of that role
/// is (a key of another scope is refused for its scope).
fn needs_staff_key(key: &crate::db::api_keys::ApiKey, needs: Role) -> Result<(), AppError> {
    match key.scope {
        Scope::Staff(role) => needs_role(role, needs),
        _ => Err(AppError::Forbidden(Denied::KeyScope {
            has: key.scope.as_str(),
            needs: Scope::Staff(needs).as_str(),
        })),
    }
}

/// The customer a sell key acts for (`X-Customer-Ref`), as a buyer.
fn key_customer(parts: &Parts, key: &crate::db::api_keys::ApiKey) -> Result<BuyerId, AppError> {
    needs_scope(key, Scope::Sell)?;
    let customer = parts
        .headers
        .get(api_key::CUSTOMER_HEADER)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    Ok(api_key::customer_buyer(
        key.id,
        api_key::customer_ref(customer)?,
    ))
}

/// A buyer of the JSON API: the session's (made on first use, as [`Buyer`])
/// or, with a sell key, the key's customer named by `X-Customer-Ref`.
pub struct ApiBuyer {
    pub id: BuyerId,
    /// The key, when a sell key made the request (limits are per key).
    pub key: Option<ApiKeyId>,
}

impl FromRequestParts<AppState> for ApiBuyer {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<ApiBuyer, AppError> {
        if let Some(key) = bearer_key(parts) {
            return Ok(ApiBuyer {
                id: key_customer(parts, &key)?,
                key: Some(key.id),
            });
        }
        let buyer = Buyer::from_request_parts(parts, state).await?;
        Ok(ApiBuyer {
            id: buyer.id,
            key: None,
        })
    }
}

/// A buyer of the JSON API for a read: like [`ApiBuyer`], but a caller
/// without a buyer id gets none, and no session is written.
pub struct ApiViewer {
    pub buyer_id: Option<BuyerId>,
}

impl FromRequestParts<AppState> for ApiViewer {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<ApiViewer, AppError> {
        // Any key may read; a sell key's customer also sees their own hold.
        if let Some(key) = bearer_key(parts) {
            let buyer_id = match key.scope {
                Scope::Sell => Some(key_customer(parts, &key)?),
                Scope::Read | Scope::Staff(_) => None,
            };
            return Ok(ApiViewer { buyer_id });
        }
        let viewer = Viewer::from_request_parts(parts, state).await?;
        Ok(ApiViewer {
            buyer_id: viewer.buyer_id,
        })
    }
}

/// Who calls the staff JSON API: a signed-in member of staff, or a staff
/// key, whose role reaches `F`. 401 for neither; 403 for a key of another
/// scope or a role below `F`. A key's role is chosen when it is made
/// (`seatmap apikey add NAME box-office --role …`); keys made before
/// roles are box-office keys.
pub struct StaffCaller<F: RoleFloor> {
    pub actor: Actor,
    floor: std::marker::PhantomData<F>,
}

impl<F: RoleFloor> FromRequestParts<AppState> for StaffCaller<F> {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<StaffCaller<F>, AppError> {
        let actor = if let Some(key) = bearer_key(parts) {
            needs_staff_key(&key, F::ROLE)?;
            Actor::Key(key.id)
        } else {
            let staff = StaffUser::from_session(parts, state).await?;
            needs_role(staff.role, F::ROLE)?;
            staff.actor()
        };
        Ok(StaffCaller {
            actor,
            floor: std::marker::PhantomData,
        })
    }
}

/// Marks the session as this staff member's, under a new session id (so a
/// session id planted before login is worthless after it).
pub async fn sign_in(
    session: &Session,
    staff_id: StaffId,
    credentials_version: i32,
) -> Result<(), AppError> {
    session.cycle_id().await.map_err(session_error)?;
    session
        .insert(STAFF_VERSION_KEY, credentials_version)
        .await
        .map_err(session_error)?;
    session
        .insert(STAFF_KEY, staff_id)
        .await
        .map_err(session_error)
}

pub async fn sign_out(session: &Session) -> Result<(), AppError> {
    session
        .remove::<i64>(STAFF_KEY)
        .await
        .map_err(session_error)?;
    session
        .remove::<i32>(STAFF_VERSION_KEY)
        .await
        .map_err(session_error)?;
    session.cycle_id().await.map_err(session_error)
}
