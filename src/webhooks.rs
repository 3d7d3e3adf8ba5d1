//! Sending webhook deliveries from the outbox. A sender leases due
//! deliveries (`db::webhooks::lease_due`, SKIP LOCKED), POSTs each one's
//! JSON with no transaction open, signed with the endpoint's secret, and
//! records the answer: a 2xx delivers it; anything else is retried with
//! backoff. A sender that dies mid-request leaves a lease that runs out,
//! and the delivery goes again with the same id: at least once.

use axum::body::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use crate::config::WebhookSettings;
use crate::db::webhooks::LeasedDelivery;
use crate::db::{self, Pool};

pub const DELIVERY_HEADER: &str = "seatmap-delivery";
pub const SIGNATURE_HEADER: &str = "seatmap-signature";
pub const EVENT_HEADER: &str = "seatmap-event";

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

/// One sending loop; every app instance runs one.
pub struct Sender {
    pool: Pool,
    client: Client<Https, Full<Bytes>>,
    settings: WebhookSettings,
}

impl Sender {
    pub fn new(pool: Pool, settings: &WebhookSettings) -> Sender {
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .build();
        Sender {
            pool,
            client: Client::builder(TokioExecutor::new()).build(https),
            settings: settings.clone(),
        }
    }

    /// Sends until the task is dropped or aborted.
    pub async fn run(self) {
        loop {
            match self.send_due().await {
                Ok(0) => tokio::time::sleep(self.settings.poll_every).await,
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = ?err, "webhook sender: leasing or recording failed");
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
            let (status, response) = self.deliver(delivery).await;
            let delivered = status.is_some_and(|s| (200..300).contains(&s));
            let retry_in = (!delivered)
                .then(|| crate::mail::backoff_from(self.settings.first_retry, delivery.attempts));
            if !delivered {
                tracing::warn!(delivery = %delivery.delivery_id, url = %delivery.url,
                    status = ?status, %response, "webhook delivery failed; will retry");
            }
            let client = self.pool.get().await?;
            if !db::webhooks::record_attempt(&client, delivery, status, &response, retry_in).await?
            {
                tracing::warn!(delivery = %delivery.delivery_id,
                    "webhook answered after its lease ran out: it may go twice");
            }
        }
        Ok(leased.len())
    }

    /// POSTs the delivery; the receiver's status (None: no answer) and the
    /// start of its answer (or why there was none).
    async fn deliver(&self, delivery: &LeasedDelivery) -> (Option<u16>, String) {
        let timestamp = time::OffsetDateTime::now_utc().unix_timestamp();
        let signature = crate::domain::webhook::signature(
            &delivery.secret,
            timestamp,
            delivery.body.as_bytes(),
        );
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
            Err(err) => return (None, format!("bad request: {err}")),
        };
        let timeout = self.settings.lease / 3;
        let response = match tokio::time::timeout(timeout, self.client.request(request)).await {
            Ok(Ok(response)) => response,
            Ok(Err(err)) => return (None, format!("{:#}", anyhow::Error::new(err))),
            Err(_) => return (None, format!("no answer within {} s", timeout.as_secs())),
        };
        let status = response.status().as_u16();
        let body = match tokio::time::timeout(
            timeout,
            Limited::new(response.into_body(), 64 * 1024).collect(),
        )
        .await
        {
            Ok(Ok(collected)) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
            _ => String::new(),
        };
        (Some(status), body.chars().take(500).collect())
    }
}
