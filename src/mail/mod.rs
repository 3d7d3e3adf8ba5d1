//! Sending the outbox over SMTP (lettre). Workers lease due rows (see
//! `db::outbox`), compose each message from the order as it is now, send it
//! with no transaction open, and mark it sent; a failure is retried with
//! exponential backoff. Without SMTP configured no worker runs and messages
//! wait in the outbox, where staff can see them.

use std::sync::Arc;
use std::time::Duration;

use askama::Template;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart, header::ContentType};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use time::OffsetDateTime;

use crate::config::MailSettings;
use crate::db::{self, Pool, outbox::Leased};
use crate::domain::ids::OrderId;
use crate::domain::signed_link::OrderLinks;

mod renewal;
mod transfer;

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
    max_attempts: i32,
    links: Arc<OrderLinks>,
    attach_pdf: bool,
}

/// Why a message was not sent this time.
enum NotSent {
    /// It may go on a later attempt (the server was down, say).
    Retry(anyhow::Error),
    /// No later attempt can send it (an address no server takes).
    Never(String),
    /// There is nothing left to send (its order was refunded).
    NothingToSay(String),
}

impl From<anyhow::Error> for NotSent {
    fn from(err: anyhow::Error) -> NotSent {
        NotSent::Retry(err)
    }
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
            max_attempts: settings.max_attempts,
            links: Arc::new(links),
            attach_pdf: settings.attach_pdf,
        }))
    }

    /// Sends until the task is dropped or aborted.
    pub async fn run(self) {
        loop {
            match self.send_due().await {
                Ok(0) => tokio::time::sleep(self.poll_every).await,
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = %crate::error::for_log(err.as_ref()), "mail worker: leasing or marking failed");
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
                Ok(Err(NotSent::Retry(err))) => {
                    self.failed(&client, row, crate::error::for_log(err.as_ref()), true)
                        .await?
                }
                Ok(Err(NotSent::Never(why))) => self.failed(&client, row, why, false).await?,
                Ok(Err(NotSent::NothingToSay(why))) => {
                    tracing::info!(message_id = %row.message_id, %why, "mail retired unsent");
                    db::outbox::retire(&client, row, &why).await?;
                }
                Err(_) => {
                    self.failed(&client, row, "timed out".to_string(), true)
                        .await?
                }
            }
        }
        Ok(leased.len())
    }

    async fn failed(
        &self,
        client: &deadpool_postgres::Client,
        row: &Leased,
        error: String,
        may_retry: bool,
    ) -> anyhow::Result<()> {
        metrics::counter!(MAIL_FAILURES).increment(1);
        let gives_up = !may_retry || row.attempts >= self.max_attempts;
        tracing::warn!(message_id = %row.message_id, attempts = row.attempts, %error,
            gives_up, "sending mail failed");
        let retry_in = may_retry.then(|| backoff(row.attempts));
        db::outbox::mark_failed(client, row, &error, retry_in, self.max_attempts).await?;
        Ok(())
    }

    async fn deliver(&self, row: &Leased) -> Result<(), NotSent> {
        // The purchase took the address by this same rule; a row written
        // before it had one (or by hand) can never go.
        let recipient = crate::domain::email::Email::parse(&row.recipient)
            .and_then(|address| address.as_str().parse::<Mailbox>().ok())
            .ok_or_else(|| NotSent::Never("not an address mail can be sent to".into()))?;
        if let Some(transfer_id) = row.ticket_transfer_id {
            let client = self.pool.get().await.map_err(anyhow::Error::from)?;
            let mail =
                transfer::transfer_mail(&client, transfer_id, &row.kind, &self.links.public_url)
                    .await?;
            let Some((body, subject)) = mail else {
                return Err(NotSent::NothingToSay(
                    "the ticket was refunded, or passed on again, before it went".into(),
                ));
            };
            return self.send(row, recipient, subject, body).await;
        }
        if let Some(entry_id) = row.waitlist_entry_id {
            let (body, subject) =
                waitlist_mail(&self.pool, entry_id, &row.kind, &self.links).await?;
            return self.send(row, recipient, subject, body).await;
        }
        let Some(order_id) = row.order_id else {
            return Err(NotSent::NothingToSay("the message has no order".into()));
        };
        // Written in the language the order was bought in.
        let mut attachment = None;
        let (body, subject) = {
            let client = self.pool.get().await.map_err(anyhow::Error::from)?;
            let lang = db::orders::lang(&client, order_id)
                .await
                .map_err(anyhow::Error::from)?;
            crate::i18n::scope(lang, async {
                match row.kind.as_str() {
                    "order_refunded" => {
                        order_refunded(&client, order_id, row.payload.as_ref(), &self.links)
                            .await
                            .map(|mail| match mail {
                                Some((body, subject)) => (Some(body), subject),
                                None => (None, row.subject.clone()),
                            })
                    }
                    "season_renewal" => {
                        renewal::renewal_mail(&client, row.payload.as_ref(), &self.links)
                            .await
                            .map(|mail| match mail {
                                Some((body, subject)) => (Some(body), subject),
                                None => (None, row.subject.clone()),
                            })
                    }
                    "payment_refunded" => payment_refunded(&client, order_id, &self.links)
                        .await
                        .map(|mail| match mail {
                            Some((body, subject)) => (Some(body), subject),
                            None => (None, row.subject.clone()),
                        }),
                    _ => order_confirmation(&client, order_id, &self.links, self.attach_pdf)
                        .await
                        .map(|mail| match mail {
                            Some((body, subject, pdf)) => {
                                attachment = pdf;
                                (Some(body), subject)
                            }
                            None => (None, row.subject.clone()),
                        }),
                }
            })
            .await?
        };
        let Some(body) = body else {
            return Err(NotSent::NothingToSay(
                "every ticket of the order was refunded before it went".into(),
            ));
        };
        match attachment {
            Some(facts) => {
                let pdf = tokio::task::spawn_blocking(move || {
                    crate::ticket_files::pdf::tickets_pdf(&facts.tickets, facts.paper, &facts.title)
                })
                .await
                .map_err(anyhow::Error::from)??;
                self.send_with(row, recipient, subject, body, Some(pdf))
                    .await
            }
            None => self.send(row, recipient, subject, body).await,
        }
    }

    async fn send(
        &self,
        row: &Leased,
        recipient: Mailbox,
        subject: String,
        body: String,
    ) -> Result<(), NotSent> {
        self.send_with(row, recipient, subject, body, None).await
    }

    /// Sends plain text, with the tickets' PDF attached when there is one.
    async fn send_with(
        &self,
        row: &Leased,
        recipient: Mailbox,
        subject: String,
        body: String,
        pdf: Option<Vec<u8>>,
    ) -> Result<(), NotSent> {
        let builder = Message::builder()
            .message_id(Some(row.message_id.clone()))
            .from(self.from.clone())
            .to(recipient)
            .subject(subject);
        let message = match pdf {
            None => builder.header(ContentType::TEXT_PLAIN).body(body),
            Some(pdf) => builder.multipart(
                MultiPart::mixed()
                    .singlepart(SinglePart::plain(body))
                    .singlepart(Attachment::new("tickets.pdf".into()).body(
                        pdf,
                        ContentType::parse("application/pdf").map_err(|err| {
                            NotSent::Never(format!("the PDF's content type: {err}"))
                        })?,
                    )),
            ),
        }
        .map_err(|err| NotSent::Never(format!("composing the message: {err}")))?;
        self.transport
            .send(message)
            .await
            .map_err(|err| NotSent::Retry(err.into()))?;
        Ok(())
    }
}

#[derive(Template)]
#[template(path = "mail/waitlist.txt")]
struct WaitlistMail {
    text: String,
    link: String,
}

/// A mail about a place on a waitlist, in the language the party joined
/// in: its place (with a link to leave), an offer (with the link that
/// opens its hold), or an offer run out (with a link to rejoin).
async fn waitlist_mail(
    pool: &Pool,
    entry_id: crate::domain::ids::WaitlistEntryId,
    kind: &str,
    links: &OrderLinks,
) -> Result<(String, String), NotSent> {
    let client = pool.get().await.map_err(anyhow::Error::from)?;
    let entry = db::waitlist::find(&client, entry_id)
        .await
        .map_err(anyhow::Error::from)?;
    let event = db::events::find(&client, entry.event_id)
        .await
        .map_err(anyhow::Error::from)?
        .ok_or_else(|| NotSent::NothingToSay("the event is gone".into()))?;
    let lang =
        crate::domain::lang::Lang::from_tag(&entry.lang).unwrap_or(crate::domain::lang::Lang::En);
    let locale = crate::i18n::locale(event.currency, &event.time_zone).in_lang(lang);
    let starts = locale.time(event.starts_at);
    let until = OffsetDateTime::now_utc() + time::Duration::days(30);
    let mail = crate::i18n::scope(lang, async {
        use crate::i18n::{t1, tw};
        let event_name = event.name.as_str();
        match kind {
            "waitlist_offer" => {
                if entry.status != "offered" {
                    return None;
                }
                let offer_until = entry.offer_expires_at.map(|at| locale.time(at))?;
                Some((
                    tw(
                        "waitlist-mail-offer",
                        &[
                            ("event", event_name.into()),
                            ("starts", starts.as_str().into()),
                            ("until", offer_until.as_str().into()),
                        ],
                    ),
                    // The party's page, whose button takes the offer: a
                    // link alone (a mail scanner follows them) takes nothing.
                    links.waitlist_url(entry_id, "", until),
                    t1("waitlist-mail-offer-subject", "event", event_name),
                ))
            }
            "waitlist_lapsed" => Some((
                t1("waitlist-mail-lapsed", "event", event_name),
                links.waitlist_url(entry_id, "", until),
                t1("waitlist-mail-lapsed-subject", "event", event_name),
            )),
            // Joined: the link confirms the address given (only a
            // confirmed place gets offers); once confirmed, it shows the
            // place and a way to leave.
            _ if entry.confirmed_at.is_none() => Some((
                tw(
                    "waitlist-mail-confirm",
                    &[
                        ("event", event_name.into()),
                        ("starts", starts.as_str().into()),
                    ],
                ),
                links.waitlist_url(entry_id, "/confirm", until),
                t1("waitlist-mail-subject", "event", event_name),
            )),
            _ => Some((
                tw(
                    "waitlist-mail-joined",
                    &[
                        ("event", event_name.into()),
                        ("starts", starts.as_str().into()),
                    ],
                ),
                links.waitlist_url(entry_id, "", until),
                t1("waitlist-mail-subject", "event", event_name),
            )),
        }
    })
    .await;
    let Some((text, link, subject)) = mail else {
        return Err(NotSent::NothingToSay("the offer is no longer out".into()));
    };
    let body = WaitlistMail { text, link }
        .render()
        .map_err(|err| NotSent::Retry(err.into()))?;
    Ok((body, subject))
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
    /// Tickets the buyer passed on: "Orchestra, row B, seat 13 (Premium):
    /// sent to Grace Hopper", with no code.
    passed_on: Vec<String>,
    receipt: Vec<crate::i18n::receipt::ReceiptLine>,
    order_id: String,
    order_url: String,
    /// None when the buyer holds no ticket to print.
    pdf_url: Option<String>,
    link_until: String,
}

/// The tickets a confirmation attaches as one PDF.
struct PdfTickets {
    tickets: Vec<crate::ticket_files::TicketFacts>,
    paper: crate::ticket_files::pdf::Paper,
    title: String,
}

/// The confirmation's text and subject, in the current language, from the
/// order's tickets as they are now (a ticket refunded, or passed on to
/// someone else, before the mail went out is not in it: its code is not
/// the buyer's); None when the buyer holds no valid ticket of it. With
/// `attach_pdf`, the tickets' facts for the attachment too.
async fn order_confirmation(
    client: &impl db::GenericClient,
    order_id: OrderId,
    links: &OrderLinks,
    attach_pdf: bool,
) -> anyhow::Result<Option<(String, String, Option<PdfTickets>)>> {
    let tickets = db::tickets::for_order(client, order_id).await?;
    let valid: Vec<_> = tickets
        .iter()
        .filter(|t| t.state_for_buyer() == db::tickets::TicketState::Valid)
        .collect();
    let passed_on: Vec<String> = tickets
        .iter()
        .filter_map(|t| match t.state_for_buyer() {
            db::tickets::TicketState::PassedOn { to } => Some(crate::i18n::tw(
                "mail-ticket-passed-on",
                &[
                    ("place", t.place().as_str().into()),
                    ("tier", t.tier_name.as_str().into()),
                    ("name", to.name.as_str().into()),
                ],
            )),
            _ => None,
        })
        .collect();
    // Its first ticket not refunded, for the event's facts: a buyer who
    // passed every ticket on still gets their receipt.
    let Some(first) = tickets.iter().find(|t| t.voided_at.is_none()) else {
        return Ok(None);
    };
    // A season's links work until its last night is past.
    let last_start = tickets
        .iter()
        .map(|t| t.starts_at)
        .max()
        .unwrap_or(first.starts_at);
    let until = links.expiry(last_start, OffsetDateTime::now_utc());
    let locale = &first.locale;
    let order = db::orders::find(client, order_id, None).await?;
    // A season order goes by the season's name; its tickets say their night.
    let title = order
        .as_ref()
        .map_or_else(|| first.event_name.clone(), |o| o.event_name.clone());
    let page = OrderConfirmation {
        buyer_name: first.buyer_name.clone(),
        event: title.clone(),
        venue: first.venue.clone(),
        starts: locale.time(first.starts_at),
        tickets: valid
            .iter()
            .map(|ticket| TicketLine {
                place: match ticket.season_id {
                    Some(_) => format!(
                        "{}, {}: {}",
                        ticket.event_name,
                        locale.time(ticket.starts_at),
                        ticket.place()
                    ),
                    None => ticket.place(),
                },
                tier: ticket.tier_name.clone(),
                price: locale.price(ticket.price_cents),
                code: ticket.code.grouped(),
                url: format!("{}/tickets/{}", links.public_url, ticket.code),
            })
            .collect(),
        receipt: match order {
            Some(order) => crate::i18n::receipt::lines(
                &order.receipt.totals,
                order.receipt.tax,
                order.receipt.promo_code.as_deref(),
                order.receipt.refunded_cents,
                locale,
            ),
            None => Vec::new(),
        },
        order_id: order_id.to_string(),
        order_url: links.order_url(order_id, until),
        pdf_url: (!valid.is_empty()).then(|| links.order_pdf_url(order_id, until)),
        passed_on,
        link_until: locale.time(until),
    };
    let subject = crate::i18n::t1("mail-subject", "event", &title);
    let pdf = (attach_pdf && !valid.is_empty()).then(|| PdfTickets {
        tickets: valid
            .iter()
            .map(|ticket| crate::ticket_files::facts::facts(ticket))
            .collect(),
        paper: crate::ticket_files::facts::paper(first),
        title: crate::i18n::t1("ticket-title", "event", &first.event_name),
    });
    Ok(Some((page.render()?, subject, pdf)))
}

#[derive(Template)]
#[template(path = "mail/payment_refunded.txt")]
struct PaymentRefunded {
    buyer_name: String,
    event: String,
    starts: String,
    amount: String,
    order_id: String,
    order_url: String,
}

#[derive(Template)]
#[template(path = "mail/order_refunded.txt")]
struct OrderRefunded {
    buyer_name: String,
    event: String,
    starts: String,
    amount: String,
    places: Vec<String>,
    back_to: String,
    still_valid: usize,
    order_id: String,
    order_url: String,
}

/// What a refund paid back, for which tickets, and how the money comes
/// back (`refund` is what the refund wrote with the message).
async fn order_refunded(
    client: &impl db::GenericClient,
    order_id: OrderId,
    refund: Option<&serde_json::Value>,
    links: &OrderLinks,
) -> anyhow::Result<Option<(String, String)>> {
    let Some(refund) = refund else {
        return Ok(None);
    };
    let refunded: Vec<i64> = refund["ticket_ids"]
        .as_array()
        .map(|ids| ids.iter().filter_map(serde_json::Value::as_i64).collect())
        .unwrap_or_default();
    let tickets = db::tickets::for_order(client, order_id).await?;
    let Some(first) = tickets.first() else {
        return Ok(None);
    };
    let locale = &first.locale;
    let until = links.expiry(first.starts_at, OffsetDateTime::now_utc());
    let back_to = match refund["back_to"].as_str().unwrap_or_default() {
        "online" => crate::i18n::t("mail-refunded-online"),
        "cash" => crate::i18n::t("mail-refunded-cash"),
        "card" => crate::i18n::t("mail-refunded-card"),
        "nothing" => crate::i18n::t("mail-refunded-nothing"),
        _ => crate::i18n::t("mail-refunded-box-office"),
    };
    let subject = crate::i18n::t1("mail-refunded-subject", "event", &first.event_name);
    Ok(Some((
        OrderRefunded {
            buyer_name: first.buyer_name.clone(),
            event: first.event_name.clone(),
            starts: locale.time(first.starts_at),
            amount: locale.price(refund["amount_cents"].as_i64().unwrap_or(0)),
            places: tickets
                .iter()
                .filter(|ticket| refunded.contains(&ticket.id.0))
                .map(|ticket| ticket.place())
                .collect(),
            back_to,
            still_valid: refund["still_valid"].as_u64().map_or_else(
                || tickets.iter().filter(|t| t.voided_at.is_none()).count(),
                |n| n as usize,
            ),
            order_id: order_id.to_string(),
            order_url: links.order_url(order_id, until),
        }
        .render()?,
        subject,
    )))
}

/// The notice that a late payment is refunded (its seats were sold to
/// someone else first).
async fn payment_refunded(
    client: &impl db::GenericClient,
    order_id: OrderId,
    links: &OrderLinks,
) -> anyhow::Result<Option<(String, String)>> {
    let Some(order) = db::orders::find(client, order_id, None).await? else {
        return Ok(None);
    };
    let Some(payment) = db::payments::of_order(client, order_id).await? else {
        return Ok(None);
    };
    let until = links.expiry(order.starts_at, OffsetDateTime::now_utc());
    let subject = crate::i18n::t1("mail-refund-subject", "event", &order.event_name);
    Ok(Some((
        PaymentRefunded {
            buyer_name: order.buyer_name,
            event: order.event_name,
            starts: order.locale.time(order.starts_at),
            amount: order.locale.price(payment.amount_paid_cents.unwrap_or(0)),
            order_id: order_id.to_string(),
            order_url: links.order_url(order_id, until),
        }
        .render()?,
        subject,
    )))
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

    /// Whatever a purchase takes, lettre takes too: the addresses below,
    /// and 20,000 strings made of the characters addresses trip on.
    #[test]
    fn every_address_a_purchase_takes_the_mailer_takes() {
        use rand::Rng;
        use rand::SeedableRng;
        let mut known = vec![
            "ada@example.com".to_string(),
            "first.last+tag@mail.example.co.uk".into(),
            "o'brien@example.ie".into(),
            "x@xn--bcher-kva.example".into(),
            "\"a,b\"@example.com".into(),
            "a@127.0.0.1".into(),
        ];
        let alphabet: Vec<char> = "aZ09.-_+'@\"(),:;<>[]\\ !#$%&*/=?^`{|}~é\u{0}\u{202e}x"
            .chars()
            .collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(25);
        for _ in 0..20_000 {
            let length = rng.random_range(3..30);
            let mut text: String = (0..length)
                .map(|_| alphabet[rng.random_range(0..alphabet.len())])
                .collect();
            // Often shaped like an address, so the rule's inside is reached.
            if rng.random_bool(0.5) {
                text.push_str(["@example.com", ".org", "@a.b", "@x-y.io"][rng.random_range(0..4)]);
            }
            known.push(text);
        }
        let mut taken = 0;
        for text in &known {
            if let Some(address) = crate::domain::email::Email::parse(text) {
                taken += 1;
                assert!(
                    address.as_str().parse::<Mailbox>().is_ok(),
                    "the purchase takes {address:?} but lettre refuses it"
                );
            }
        }
        assert!(
            taken > 100,
            "the generated addresses reach the rule ({taken} taken)"
        );
    }
}
