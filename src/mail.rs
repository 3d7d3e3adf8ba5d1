//! Sending the outbox over SMTP (lettre). Workers lease due rows (see
//! `db::outbox`), compose each message from the order as it is now, send it
//! with no transaction open, and mark it sent; a failure is retried with
//! exponential backoff. Without SMTP configured no worker runs and messages
//! wait in the outbox, where staff can see them.

use std::sync::Arc;
use std::time::Duration;

use askama::Template;
use lettre::message::{Mailbox, header::ContentType};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use time::OffsetDateTime;

use crate::config::MailSettings;
use crate::db::{self, Pool, outbox::Leased};
use crate::domain::ids::OrderId;
use crate::web::state::OrderLinks;

pub const MAIL_SENT: &str = "seatmap_mail_sent_total";
pub const MAIL_FAILURES: &str = "seatmap_mail_failures_total";

/// The first retry waits this long; each next one twice as long.
const FIRST_RETRY: Duration = Duration::from_secs(10);
const LONGEST_RETRY: Duration = Duration::from_secs(3600);

/// How long a row waits after its `attempts`-th failed attempt.
pub fn backoff(attempts: i32) -> Duration {
    backoff_from(FIRST_RETRY, attempts)
}

/// [`backoff`] from another first wait (webhooks' is configurable).
pub fn backoff_from(first: Duration, attempts: i32) -> Duration {
    let doublings = attempts.saturating_sub(1).clamp(0, 16) as u32;
    first
        .saturating_mul(2u32.saturating_pow(doublings))
        .min(LONGEST_RETRY)
}

/// One sending loop: what `serve` runs when SMTP is configured, and what
/// tests run several of at once.
pub struct Worker {
    pool: Pool,
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    lease: Duration,
    poll_every: Duration,
    links: Arc<OrderLinks>,
}

impl Worker {
    /// None when no SMTP server is configured.
    pub fn new(
        pool: Pool,
        settings: &MailSettings,
        links: OrderLinks,
    ) -> anyhow::Result<Option<Worker>> {
        let Some(url) = &settings.smtp_url else {
            return Ok(None);
        };
        // Every SMTP command must answer well within the lease, so a slow
        // server can't keep a row past its lease and get it sent twice.
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose())
            .map_err(|err| anyhow::anyhow!("SEATMAP_SMTP_URL is not usable: {err}"))?
            .timeout(Some(settings.lease / 3))
            .build();
        let from: Mailbox = settings
            .from
            .parse()
            .map_err(|err| anyhow::anyhow!("SEATMAP_MAIL_FROM is not a mailbox: {err}"))?;
        Ok(Some(Worker {
            pool,
            transport,
            from,
            lease: settings.lease,
            poll_every: settings.poll_every,
            links: Arc::new(links),
        }))
    }

    /// Sends until the task is dropped or aborted.
    pub async fn run(self) {
        loop {
            match self.send_due().await {
                Ok(0) => tokio::time::sleep(self.poll_every).await,
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = ?err, "mail worker: leasing or marking failed");
                    tokio::time::sleep(self.poll_every).await;
                }
            }
        }
    }

    /// Leases one due row and sends it; how many were leased.
    pub async fn send_due(&self) -> anyhow::Result<usize> {
        let leased = {
            let client = self.pool.get().await?;
            db::outbox::lease_due(&client, 1, self.lease).await?
        };
        for row in &leased {
            let outcome = tokio::time::timeout(self.lease / 2, self.deliver(row)).await;
            let client = self.pool.get().await?;
            match outcome {
                Ok(Ok(())) => {
                    metrics::counter!(MAIL_SENT).increment(1);
                    if !db::outbox::mark_sent(&client, row).await? {
                        tracing::warn!(message_id = %row.message_id,
                            "mail sent after its lease ran out: it may go twice");
                    }
                }
                Ok(Err(err)) => self.failed(&client, row, format!("{err:#}")).await?,
                Err(_) => self.failed(&client, row, "timed out".to_string()).await?,
            }
        }
        Ok(leased.len())
    }

    async fn failed(
        &self,
        client: &deadpool_postgres::Client,
        row: &Leased,
        error: String,
    ) -> anyhow::Result<()> {
        metrics::counter!(MAIL_FAILURES).increment(1);
        tracing::warn!(message_id = %row.message_id, attempts = row.attempts, %error, "sending mail failed");
        db::outbox::mark_failed(client, row, &error, backoff(row.attempts)).await?;
        Ok(())
    }

    async fn deliver(&self, row: &Leased) -> anyhow::Result<()> {
        let body = {
            let client = self.pool.get().await?;
            match row.order_id {
                Some(order_id) => order_confirmation(&client, order_id, &self.links).await?,
                None => anyhow::bail!("message {} has no order", row.message_id),
            }
        };
        let message = Message::builder()
            .message_id(Some(row.message_id.clone()))
            .from(self.from.clone())
            .to(row.recipient.parse()?)
            .subject(row.subject.clone())
            .header(ContentType::TEXT_PLAIN)
            .body(body)?;
        self.transport.send(message).await?;
        Ok(())
    }
}

struct TicketLine {
    place: String,
    tier: String,
    price: String,
    code: String,
    url: String,
}

#[derive(Template)]
#[template(path = "mail/order_confirmation.txt")]
struct OrderConfirmation {
    buyer_name: String,
    event: String,
    venue: String,
    starts: String,
    tickets: Vec<TicketLine>,
    total: String,
    order_id: String,
    order_url: String,
    link_until: String,
}

/// The confirmation's text, from the order's tickets as they are now (a
/// ticket refunded before the mail went out is not in it).
async fn order_confirmation(
    client: &impl db::GenericClient,
    order_id: OrderId,
    links: &OrderLinks,
) -> anyhow::Result<String> {
    let tickets = db::tickets::for_order(client, order_id).await?;
    let valid: Vec<_> = tickets.iter().filter(|t| t.voided_at.is_none()).collect();
    let Some(first) = valid.first() else {
        anyhow::bail!("order {order_id} has no valid tickets to send");
    };
    let until = links.expiry(first.starts_at, OffsetDateTime::now_utc());
    let locale = &first.locale;
    let page = OrderConfirmation {
        buyer_name: first.buyer_name.clone(),
        event: first.event_name.clone(),
        venue: first.venue.clone(),
        starts: locale.time(first.starts_at),
        tickets: valid
            .iter()
            .map(|ticket| TicketLine {
                place: ticket.place(),
                tier: ticket.tier_name.clone(),
                price: locale.price(ticket.price_cents),
                code: ticket.code.grouped(),
                url: format!("{}/tickets/{}", links.public_url, ticket.code),
            })
            .collect(),
        total: locale.price(valid.iter().map(|t| t.price_cents).sum::<i64>()),
        order_id: order_id.to_string(),
        order_url: links.order_url(order_id, until),
        link_until: locale.time(until),
    };
    Ok(page.render()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_doubling_up_to_an_hour() {
        assert_eq!(backoff(1), Duration::from_secs(10));
        assert_eq!(backoff(2), Duration::from_secs(20));
        assert_eq!(backoff(4), Duration::from_secs(80));
        assert_eq!(backoff(12), LONGEST_RETRY);
        assert_eq!(backoff(i32::MAX), LONGEST_RETRY);
        assert_eq!(backoff(0), Duration::from_secs(10));
    }
}
