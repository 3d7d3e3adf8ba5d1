//! Sending webhook deliveries from the outbox. A sender leases due
//! deliveries (`db::webhooks::lease_due`, SKIP LOCKED), POSTs each one's
//! JSON with no transaction open, signed with the endpoint's secret, and
//! records the answer: a 2xx delivers it; anything else is retried with
//! backoff. A sender that dies mid-request leaves a lease that runs out,
//! and the delivery goes again with the same id: at least once.
//!
//! Deliveries reach public addresses only (or the operator's allow-list):
//! a host name is resolved when the URL is registered and again at every
//! delivery (DNS can change), and only permitted addresses are connected
//! to. What the receiver answered is kept as its status alone, so the
//! delivery log can't be used to read the app's own network.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::Name;
use hyper_util::rt::TokioExecutor;
use url::Url;

use crate::config::WebhookSettings;
use crate::db::webhooks::LeasedDelivery;
use crate::db::{self, Pool};
use crate::domain::webhook::{self as rules, TargetPolicy, TargetProblem};

pub const DELIVERY_HEADER: &str = "seatmap-delivery";
pub const SIGNATURE_HEADER: &str = "seatmap-signature";
pub const EVENT_HEADER: &str = "seatmap-event";

type Https = hyper_rustls::HttpsConnector<HttpConnector<PermittedResolver>>;

/// Checks a URL staff want deliveries sent to: parsed, without
/// credentials, and every address its host resolves to permitted.
pub async fn check_target(text: &str, policy: &TargetPolicy) -> Result<Url, TargetProblem> {
    let url = rules::parse_target(text)?;
    let addresses = resolve(&url).await?;
    if addresses
        .iter()
        .any(|address| !policy.permits(address.ip()))
    {
        return Err(TargetProblem::NotPublic);
    }
    Ok(url)
}

/// How long a URL's host name may take to resolve when it is registered.
const RESOLVE_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

async fn resolve(url: &Url) -> Result<Vec<SocketAddr>, TargetProblem> {
    if let Some(ip) = rules::literal_address(url) {
        return Ok(vec![SocketAddr::new(ip, 0)]);
    }
    let host = url.host_str().ok_or(TargetProblem::NotAUrl)?;
    // A resolver that hangs must not hold the staff member's request.
    let found: Vec<SocketAddr> =
        tokio::time::timeout(RESOLVE_WITHIN, tokio::net::lookup_host((host, 0)))
            .await
            .map_err(|_| TargetProblem::Unresolved)?
            .map_err(|_| TargetProblem::Unresolved)?
            .collect();
    if found.is_empty() {
        return Err(TargetProblem::Unresolved);
    }
    Ok(found)
}

/// The delivery client's resolver: a name's addresses, less those the
/// policy forbids; none left is an error, so nothing is connected to.
#[derive(Clone)]
struct PermittedResolver {
    policy: Arc<TargetPolicy>,
}

impl tower::Service<Name> for PermittedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let policy = self.policy.clone();
        Box::pin(async move {
            let permitted: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0))
                .await?
                .filter(|address| policy.permits(address.ip()))
                .collect();
            if permitted.is_empty() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    NOT_PUBLIC,
                ));
            }
            Ok(permitted.into_iter())
        })
    }
}

const NOT_PUBLIC: &str = "refused: the host is not a public address";

/// One sending loop; every app instance runs one.
pub struct Sender {
    pool: Pool,
    client: Client<Https, Full<Bytes>>,
    settings: WebhookSettings,
    policy: Arc<TargetPolicy>,
}

impl Sender {
    pub fn new(pool: Pool, settings: &WebhookSettings) -> Sender {
        let policy = Arc::new(TargetPolicy {
            allowed: settings.allowed_networks.clone(),
        });
        let mut http = HttpConnector::new_with_resolver(PermittedResolver {
            policy: policy.clone(),
        });
        http.enforce_http(false);
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Sender {
            pool,
            client: Client::builder(TokioExecutor::new()).build(https),
            settings: settings.clone(),
            policy,
        }
    }

    /// Sends until the task is dropped or aborted.
    pub async fn run(self) {
        loop {
            match self.send_due().await {
                Ok(0) => tokio::time::sleep(self.settings.poll_every).await,
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = %crate::error::for_log(err.as_ref()), "webhook sender: leasing or recording failed");
                    tokio::time::sleep(self.settings.poll_every).await;
                }
            }
        }
    }

    /// Leases one due delivery and sends it; how many were leased.
    pub async fn send_due(&self) -> anyhow::Result<usize> {
        let leased = {
            let client = self.pool.get().await?;
            db::webhooks::lease_due(&client, 1, self.settings.lease).await?
        };
        for delivery in &leased {
            let (status, outcome) = self.deliver(delivery).await;
            let delivered = status.is_some_and(|s| (200..300).contains(&s));
            let retry_in = (!delivered)
                .then(|| crate::mail::backoff_from(self.settings.first_retry, delivery.attempts));
            if !delivered {
                tracing::warn!(delivery = %delivery.delivery_id,
                    target = %rules::loggable(&delivery.url), %outcome, attempts = delivery.attempts,
                    "webhook delivery failed");
            }
            let client = self.pool.get().await?;
            let recorded = db::webhooks::record_attempt(
                &client,
                delivery,
                status,
                &outcome,
                retry_in,
                self.settings.max_attempts,
            )
            .await?;
            if !recorded {
                tracing::warn!(delivery = %delivery.delivery_id,
                    "webhook answered after its lease ran out: it may go twice");
            }
        }
        Ok(leased.len())
    }

    /// POSTs the delivery; the receiver's status (None: no answer) and a
    /// one-line summary of what happened. The receiver's body is never
    /// read: a log of answers would show what answers at any address.
    async fn deliver(&self, delivery: &LeasedDelivery) -> (Option<u16>, String) {
        match Url::parse(&delivery.url) {
            Ok(url) => {
                if rules::literal_address(&url).is_some_and(|ip| !self.policy.permits(ip)) {
                    return (None, NOT_PUBLIC.into());
                }
            }
            Err(_) => return (None, "refused: not a URL".into()),
        }
        let timestamp = time::OffsetDateTime::now_utc().unix_timestamp();
        let secrets: Vec<&str> = std::iter::once(delivery.secret.as_str())
            .chain(delivery.previous_secret.as_deref())
            .collect();
        let signature = rules::signature(&secrets, timestamp, delivery.body.as_bytes());
        let event_type = serde_json::from_str::<serde_json::Value>(&delivery.body)
            .ok()
            .and_then(|body| body["type"].as_str().map(str::to_string))
            .unwrap_or_default();
        let request = hyper::Request::post(&delivery.url)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(hyper::header::USER_AGENT, "seatmap-webhooks")
            .header(DELIVERY_HEADER, &delivery.delivery_id)
            .header(EVENT_HEADER, event_type)
            .header(SIGNATURE_HEADER, signature)
            .body(Full::new(Bytes::from(delivery.body.clone())));
        let request = match request {
            Ok(request) => request,
            Err(_) => return (None, "refused: not a URL".into()),
        };
        let timeout = self.settings.lease / 3;
        match tokio::time::timeout(timeout, self.client.request(request)).await {
            Ok(Ok(response)) => {
                let status = response.status();
                (
                    Some(status.as_u16()),
                    format!(
                        "HTTP {} {}",
                        status.as_u16(),
                        status.canonical_reason().unwrap_or("")
                    )
                    .trim_end()
                    .to_string(),
                )
            }
            Ok(Err(err)) => (None, connect_failure(&err)),
            Err(_) => (None, format!("no answer within {} s", timeout.as_secs())),
        }
    }
}

/// Why a request got no answer, in a few words: refused by policy, the
/// name not found, or no connection; never the addresses tried.
fn connect_failure(err: &hyper_util::client::legacy::Error) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::PermissionDenied
        {
            return NOT_PUBLIC.into();
        }
        source = cause.source();
    }
    if err.is_connect() {
        "could not connect".into()
    } else {
        "the connection failed before an answer".into()
    }
}
