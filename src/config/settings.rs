//! Every setting, once: its variable, its default, what reads it, and what
//! it is for. `Config::from_lookup` reads each entry into its typed field,
//! and the docs test holds `docs/operations.md`'s table to [`ALL`].

pub use super::values::{Described, Flag, Millis, Number, Optional, Secs, Text};
use super::values::{LogFormat, Secret, api_url, parsed, secret, text, trimmed_secret};

/// The PostgreSQL to use (unset: a private, embedded one).
pub const DATABASE_URL: Optional<Secret> = Optional {
    name: "DATABASE_URL",
    accepts: "a URL or `key=value` string",
    parse: secret,
};
/// Where the embedded cluster lives, `<dir>/pgdata` (unset: `.seatmap`).
pub const DATA_DIR: Optional<std::path::PathBuf> = Optional {
    name: "SEATMAP_DATA_DIR",
    accepts: "a folder",
    parse: |_, raw| Ok(raw.into()),
};
/// A streaming replica for reads that may be a moment behind.
pub const READ_DATABASE_URL: Optional<Secret> = Optional {
    name: "SEATMAP_READ_DATABASE_URL",
    accepts: "a connection string",
    parse: connection_string,
};
/// Past this lag behind the primary, the replica's reads go to the primary.
pub const READ_MAX_LAG_MS: Millis = Millis::within("SEATMAP_READ_MAX_LAG_MS", 1_000, 0..=600_000);
/// Request connections per instance (the workers have 2 more).
pub const DB_POOL_SIZE: Number<usize> = Number::within("SEATMAP_DB_POOL_SIZE", 16, 1..=500);
/// How long a request waits for a pooled connection before `503`.
pub const DB_POOL_WAIT_MS: Millis = Millis::within("SEATMAP_DB_POOL_WAIT_MS", 2_000, 10..=60_000);
/// Every connection's `lock_timeout`.
pub const DB_LOCK_TIMEOUT_MS: Millis =
    Millis::within("SEATMAP_DB_LOCK_TIMEOUT_MS", 2_000, 10..=600_000);
/// Every connection's `statement_timeout`.
pub const DB_STATEMENT_TIMEOUT_MS: Millis =
    Millis::within("SEATMAP_DB_STATEMENT_TIMEOUT_MS", 5_000, 10..=600_000);

/// How long a hold lasts, fixed when its first seat is held.
pub const HOLD_TTL_SECS: Secs = Secs::within("SEATMAP_HOLD_TTL_SECS", 480, 1..=86_400);
/// What "Need more time?" adds, once per hold, in its last 2 minutes.
pub const HOLD_EXTEND_SECS: Secs = Secs::within("SEATMAP_HOLD_EXTEND_SECS", 240, 1..=3600);
/// Seats (and GA places) one hold may contain.
pub const MAX_SEATS_PER_HOLD: Number<u32> =
    Number::within("SEATMAP_MAX_SEATS_PER_HOLD", 10, 1..=100);
/// How long a waiting party's offer holds its seats.
pub const WAITLIST_OFFER_SECS: Secs =
    Secs::within("SEATMAP_WAITLIST_OFFER_SECS", 1800, 10..=86_400);
/// How long after the demo arena is first seeded its waiting room opens.
pub const DEMO_QUEUE_OPENS_SECS: Secs =
    Secs::within("SEATMAP_DEMO_QUEUE_OPENS_SECS", 60, 0..=86_400);
/// Seeds the demo arena's waiting room without its always-on proof of work
/// (the browser tests' arena, and a demo for browsers without JavaScript);
/// joins past the free allowance still pay one.
pub const DEMO_QUEUE_WITHOUT_PUZZLE: Flag = Flag("SEATMAP_DEMO_QUEUE_WITHOUT_PUZZLE");
/// The claims' p95 an "auto" waiting room admits up to (see
/// `domain::queue_pace`).
pub const QUEUE_CLAIM_P95_MS: Millis =
    Millis::within("SEATMAP_QUEUE_CLAIM_P95_MS", 250, 20..=10_000);
/// Joins of one event's waiting room one client (an address, an IPv6 /64,
/// an API key) may make in a minute before each further join needs a
/// proof of work that grows with its count (see `domain::queue::join_bits`).
pub const QUEUE_FREE_JOINS_PER_MINUTE: Number<u32> =
    Number::within("SEATMAP_QUEUE_FREE_JOINS_PER_MINUTE", 20, 1..=100_000);
/// The share of a queued event's seats one client's admitted buyers may
/// hold together, in percent (at least `SEATMAP_QUEUE_SHARE_MIN_SEATS`).
pub const QUEUE_SHARE_PERCENT: Number<u32> =
    Number::within("SEATMAP_QUEUE_SHARE_PERCENT", 5, 1..=100);
/// The seats one client's admitted buyers may hold together whatever the
/// house's size.
pub const QUEUE_SHARE_MIN_SEATS: Number<u32> =
    Number::within("SEATMAP_QUEUE_SHARE_MIN_SEATS", 200, 1..=1_000_000);
/// How long an admission waits for its first claim before it lapses (then
/// the full shopping window runs from the admission).
pub const QUEUE_FIRST_CLAIM_SECS: Secs =
    Secs::within("SEATMAP_QUEUE_FIRST_CLAIM_SECS", 180, 10..=86_400);
/// Live places on one event's waitlist per client (address, IPv6 /64, API key).
pub const WAITLIST_ENTRIES_PER_ADDRESS: Number<u32> =
    Number::within("SEATMAP_WAITLIST_ENTRIES_PER_ADDRESS", 4, 1..=1_000);

/// Live holds per client address, across its sessions (0: no limit).
pub const MAX_HOLDS_PER_IP: Number<u32> = Number::any("SEATMAP_MAX_HOLDS_PER_IP", 20);
/// Live holds per API key, all its customers together (0: no limit).
pub const MAX_HOLDS_PER_KEY: Number<u32> = Number::any("SEATMAP_MAX_HOLDS_PER_KEY", 100);
/// Hold requests per buyer (session) per minute (0: no limit).
pub const HOLD_REQUESTS_PER_MINUTE: Number<u32> =
    Number::any("SEATMAP_HOLD_REQUESTS_PER_MINUTE", 30);
/// Hold requests per client address per minute (0: no limit).
pub const HOLD_REQUESTS_PER_MINUTE_PER_IP: Number<u32> =
    Number::any("SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_IP", 300);
/// Hold requests per API key per minute (0: no limit).
pub const HOLD_REQUESTS_PER_MINUTE_PER_KEY: Number<u32> =
    Number::any("SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_KEY", 3000);
/// Promo code tries on one event per minute, from everyone together (0:
/// no limit): guessing from many addresses and sessions still meets it.
pub const CODE_TRIES_PER_EVENT_PER_MINUTE: Number<u32> =
    Number::any("SEATMAP_CODE_TRIES_PER_EVENT_PER_MINUTE", 600);
/// Failed staff sign-ins per account per 15 minutes (0: no limit).
pub const LOGIN_FAILURES_PER_ACCOUNT: Number<u32> =
    Number::any("SEATMAP_LOGIN_FAILURES_PER_ACCOUNT", 5);
/// Failed staff sign-ins per client address per 15 minutes (0: no limit).
pub const LOGIN_FAILURES_PER_IP: Number<u32> = Number::any("SEATMAP_LOGIN_FAILURES_PER_IP", 20);
/// Public reads in flight per client address; more wait (0: no share).
pub const READS_PER_IP: Number<usize> = Number::any("SEATMAP_READS_PER_IP", 4);
/// The client address from the last `X-Forwarded-For` entry (behind a proxy only).
pub const TRUST_FORWARDED_FOR: Flag = Flag("SEATMAP_TRUST_FORWARDED_FOR");

/// The address to listen on.
pub const ADDR: Text<std::net::SocketAddr> = Text {
    name: "SEATMAP_ADDR",
    default: "127.0.0.1:3000",
    accepts: "`ip:port`",
    parse: parsed,
};
/// Marks the session cookie `Secure` (behind HTTPS).
pub const SECURE_COOKIES: Flag = Flag("SEATMAP_SECURE_COOKIES");
/// A request head must arrive within this; also the keep-alive idle time.
pub const HTTP_HEADER_TIMEOUT_SECS: Secs =
    Secs::within("SEATMAP_HTTP_HEADER_TIMEOUT_SECS", 10, 1..=300);
/// A request whose body sends nothing for this long gets `408`.
pub const HTTP_BODY_TIMEOUT_SECS: Secs =
    Secs::within("SEATMAP_HTTP_BODY_TIMEOUT_SECS", 10, 1..=300);
/// A whole request must arrive and be answered within this, else `408`.
pub const HTTP_REQUEST_TIMEOUT_SECS: Secs =
    Secs::within("SEATMAP_HTTP_REQUEST_TIMEOUT_SECS", 60, 1..=3600);
/// Open connections on this instance.
pub const MAX_CONNECTIONS: Number<usize> =
    Number::within("SEATMAP_MAX_CONNECTIONS", 4096, 16..=1_000_000);
/// Open connections from one client address (0: no cap).
pub const MAX_CONNECTIONS_PER_IP: Number<usize> =
    Number::any("SEATMAP_MAX_CONNECTIONS_PER_IP", 256);
/// How long SIGTERM waits for requests in flight.
pub const SHUTDOWN_GRACE_SECS: Secs = Secs::within("SEATMAP_SHUTDOWN_GRACE_SECS", 10, 0..=600);
/// Origins allowed to frame the buyer pages (unset: none).
pub const FRAME_ANCESTORS: Optional<Vec<String>> = Optional {
    name: "SEATMAP_FRAME_ANCESTORS",
    accepts: "space-separated `http(s)://host[:port]` origins",
    parse: origins,
};

/// Open live-map streams on this instance (`503` beyond).
pub const LIVE_STREAMS_MAX: Number<usize> =
    Number::within("SEATMAP_LIVE_STREAMS_MAX", 2000, 1..=1_000_000);
/// Open live-map streams from one client address (`429` beyond; 0: no cap).
pub const LIVE_STREAMS_PER_IP: Number<usize> = Number::any("SEATMAP_LIVE_STREAMS_PER_IP", 64);
/// How often each instance asks PostgreSQL what has committed.
pub const LIVE_POLL_MS: Millis = Millis::within("SEATMAP_LIVE_POLL_MS", 50, 5..=10_000);
/// How often, at most, a changed seat map for viewers is made anew (0: always).
pub const SEAT_MAP_CACHE_MS: Millis = Millis::within("SEATMAP_SEAT_MAP_CACHE_MS", 500, 0..=5_000);
/// Events with more seats open on an overview of sections.
pub const OVERVIEW_ABOVE_SEATS: Number<u32> =
    Number::within("SEATMAP_OVERVIEW_ABOVE_SEATS", 2_000, 0..=1_000_000);

/// Where buyers reach the app, for links in e-mail (unset: the bound address).
pub const PUBLIC_URL: Optional<String> = Optional {
    name: "SEATMAP_PUBLIC_URL",
    accepts: "an `http(s)` URL, no query or fragment",
    parse: public_url,
};
/// lettre's SMTP URL (unset: mail waits in the outbox).
pub const SMTP_URL: Optional<Secret> = Optional {
    name: "SEATMAP_SMTP_URL",
    accepts: "lettre's SMTP URL",
    parse: secret,
};
/// The From mailbox.
pub const MAIL_FROM: Text<String> = Text {
    name: "SEATMAP_MAIL_FROM",
    default: "Seatmap box office <tickets@seatmap.invalid>",
    accepts: "a mailbox",
    parse: text,
};
/// How long a mail worker holds a message it is sending.
pub const MAIL_LEASE_SECS: Secs = Secs::within("SEATMAP_MAIL_LEASE_SECS", 120, 3..=3600);
/// How often an idle mail worker looks for due mail.
pub const MAIL_POLL_MS: Millis = Millis::within("SEATMAP_MAIL_POLL_MS", 1_000, 10..=60_000);
/// Failed attempts before a message is marked failed.
pub const MAIL_MAX_ATTEMPTS: Number<i32> = Number::within("SEATMAP_MAIL_MAX_ATTEMPTS", 12, 1..=100);

/// How long a webhook sender holds a delivery.
pub const WEBHOOK_LEASE_SECS: Secs = Secs::within("SEATMAP_WEBHOOK_LEASE_SECS", 60, 3..=3600);
/// How often an idle webhook sender looks for due deliveries.
pub const WEBHOOK_POLL_MS: Millis = Millis::within("SEATMAP_WEBHOOK_POLL_MS", 1_000, 10..=60_000);
/// The first retry's wait; it doubles each time, up to an hour.
pub const WEBHOOK_FIRST_RETRY_MS: Millis =
    Millis::within("SEATMAP_WEBHOOK_FIRST_RETRY_MS", 10_000, 10..=3_600_000);
/// Failed attempts before a delivery is marked failed.
pub const WEBHOOK_MAX_ATTEMPTS: Number<i32> =
    Number::within("SEATMAP_WEBHOOK_MAX_ATTEMPTS", 12, 1..=100);
/// Private networks deliveries may reach (unset: public addresses only).
pub const WEBHOOK_ALLOW_NETWORKS: Optional<Vec<ipnet::IpNet>> = Optional {
    name: "SEATMAP_WEBHOOK_ALLOW_NETWORKS",
    accepts: "addresses or CIDR blocks, separated by commas or spaces",
    parse: networks,
};

/// Stripe's secret key; with the webhook secret, events can be paid online.
pub const STRIPE_SECRET_KEY: Optional<Secret> = Optional {
    name: "SEATMAP_STRIPE_SECRET_KEY",
    accepts: "Stripe's secret key",
    parse: trimmed_secret,
};
/// What signs the events Stripe sends to `/payments/stripe/webhook`.
pub const STRIPE_WEBHOOK_SECRET: Optional<Secret> = Optional {
    name: "SEATMAP_STRIPE_WEBHOOK_SECRET",
    accepts: "the endpoint's signing secret (`whsec_…`)",
    parse: trimmed_secret,
};
/// Stripe's API base, or a stand-in's.
pub const STRIPE_API_URL: Text<String> = Text {
    name: "SEATMAP_STRIPE_API_URL",
    default: STRIPE_API_URL_DEFAULT,
    accepts: "an http(s) base URL",
    parse: api_url,
};
/// How long an online order's seats stay held for its payment (a Checkout
/// Session lives at most 24 hours).
pub const PAYMENT_WINDOW_SECS: Secs = Secs::within("SEATMAP_PAYMENT_WINDOW_SECS", 900, 1..=82_800);
/// How often an idle payment worker looks for due calls to Stripe.
pub const PAYMENT_POLL_MS: Millis = Millis::within("SEATMAP_PAYMENT_POLL_MS", 500, 10..=60_000);
/// The first retry of a failed call to Stripe; it doubles, up to an hour.
pub const PAYMENT_FIRST_RETRY_MS: Millis =
    Millis::within("SEATMAP_PAYMENT_FIRST_RETRY_MS", 10_000, 10..=3_600_000);

/// When set, `/metrics` answers only `Authorization: Bearer <token>`.
pub const METRICS_TOKEN: Optional<Secret> = Optional {
    name: "SEATMAP_METRICS_TOKEN",
    accepts: "any string",
    parse: secret,
};
/// `json`: one JSON object a line (unset, or anything else: text lines).
pub const LOG_FORMAT: Optional<LogFormat> = Optional {
    name: "SEATMAP_LOG_FORMAT",
    accepts: "`json`",
    parse: |_, raw| match raw.trim() {
        "json" => Ok(LogFormat::Json),
        _ => Ok(LogFormat::Text),
    },
};
/// What is logged (tracing's own name for it).
pub const RUST_LOG: Text<String> = Text {
    name: "RUST_LOG",
    // tokio_postgres logs the server's NOTICEs at info ("relation
    // refinery_schema_history already exists, skipping" on every start).
    // tower_sessions_core warns of every session cookie its store doesn't
    // know: a line per request anyone can send, so errors only.
    default: "info,tower_http=warn,tokio_postgres=warn,tower_sessions_core=error",
    accepts: "tracing filter directives",
    parse: text,
};

/// Apple Wallet: the pass type id the certificate was made for.
pub const WALLET_PASS_TYPE_ID: Optional<String> = Optional {
    name: "SEATMAP_WALLET_PASS_TYPE_ID",
    accepts: "a pass type id (`pass.com.example.tickets`)",
    parse: text,
};
/// Apple Wallet: the developer team's id.
pub const WALLET_TEAM_ID: Optional<String> = Optional {
    name: "SEATMAP_WALLET_TEAM_ID",
    accepts: "Apple's 10-character team id",
    parse: text,
};
/// Apple Wallet: the pass type certificate.
pub const WALLET_CERT: Optional<String> = Optional {
    name: "SEATMAP_WALLET_CERT",
    accepts: "a PEM certificate, or the path of a file holding one",
    parse: pem_or_file,
};
/// Apple Wallet: the certificate's private key.
pub const WALLET_KEY: Optional<Secret> = Optional {
    name: "SEATMAP_WALLET_KEY",
    accepts: "a PEM RSA private key, or the path of a file holding one",
    parse: secret_pem_or_file,
};
/// Apple Wallet: Apple's WWDR intermediate certificate.
pub const WALLET_WWDR_CERT: Optional<String> = Optional {
    name: "SEATMAP_WALLET_WWDR_CERT",
    accepts: "a PEM certificate, or the path of a file holding one",
    parse: pem_or_file,
};
/// Google Wallet: the service account key file that signs save links.
pub const GOOGLE_WALLET_KEY: Optional<Secret> = Optional {
    name: "SEATMAP_GOOGLE_WALLET_KEY",
    accepts: "a service account key (JSON), or the path of its file",
    parse: secret_json_or_file,
};
/// Google Wallet: the issuer id of the Wallet console.
pub const GOOGLE_WALLET_ISSUER_ID: Optional<String> = Optional {
    name: "SEATMAP_GOOGLE_WALLET_ISSUER_ID",
    accepts: "the issuer id's digits",
    parse: text,
};
/// Attach the PDF tickets to the confirmation mail (not just link them).
pub const MAIL_ATTACH_PDF: Flag = Flag("SEATMAP_MAIL_ATTACH_PDF");

/// PEM text as given, or read from the file the value names.
fn pem_or_file(name: &str, raw: &str) -> anyhow::Result<String> {
    inline_or_file(name, raw, "-----BEGIN")
}

fn secret_pem_or_file(name: &str, raw: &str) -> anyhow::Result<Secret> {
    pem_or_file(name, raw).map(Secret::new)
}

fn secret_json_or_file(name: &str, raw: &str) -> anyhow::Result<Secret> {
    inline_or_file(name, raw, "{").map(Secret::new)
}

fn inline_or_file(name: &str, raw: &str, inline_start: &str) -> anyhow::Result<String> {
    let raw = raw.trim();
    if raw.starts_with(inline_start) {
        return Ok(raw.to_string());
    }
    std::fs::read_to_string(raw)
        .map_err(|err| anyhow::anyhow!("{name}: can't read the file {raw:?}: {err}"))
}

/// Every setting, in the docs' order.
pub const ALL: &[&dyn Described] = &[
    &DATABASE_URL,
    &DATA_DIR,
    &READ_DATABASE_URL,
    &READ_MAX_LAG_MS,
    &DB_POOL_SIZE,
    &DB_POOL_WAIT_MS,
    &DB_LOCK_TIMEOUT_MS,
    &DB_STATEMENT_TIMEOUT_MS,
    &HOLD_TTL_SECS,
    &HOLD_EXTEND_SECS,
    &MAX_SEATS_PER_HOLD,
    &WAITLIST_OFFER_SECS,
    &WAITLIST_ENTRIES_PER_ADDRESS,
    &DEMO_QUEUE_OPENS_SECS,
    &DEMO_QUEUE_WITHOUT_PUZZLE,
    &QUEUE_CLAIM_P95_MS,
    &QUEUE_FREE_JOINS_PER_MINUTE,
    &QUEUE_SHARE_PERCENT,
    &QUEUE_SHARE_MIN_SEATS,
    &QUEUE_FIRST_CLAIM_SECS,
    &MAX_HOLDS_PER_IP,
    &MAX_HOLDS_PER_KEY,
    &HOLD_REQUESTS_PER_MINUTE,
    &HOLD_REQUESTS_PER_MINUTE_PER_IP,
    &HOLD_REQUESTS_PER_MINUTE_PER_KEY,
    &CODE_TRIES_PER_EVENT_PER_MINUTE,
    &LOGIN_FAILURES_PER_ACCOUNT,
    &LOGIN_FAILURES_PER_IP,
    &READS_PER_IP,
    &TRUST_FORWARDED_FOR,
    &ADDR,
    &SECURE_COOKIES,
    &HTTP_HEADER_TIMEOUT_SECS,
    &HTTP_BODY_TIMEOUT_SECS,
    &HTTP_REQUEST_TIMEOUT_SECS,
    &MAX_CONNECTIONS,
    &MAX_CONNECTIONS_PER_IP,
    &SHUTDOWN_GRACE_SECS,
    &FRAME_ANCESTORS,
    &LIVE_STREAMS_MAX,
    &LIVE_STREAMS_PER_IP,
    &LIVE_POLL_MS,
    &SEAT_MAP_CACHE_MS,
    &OVERVIEW_ABOVE_SEATS,
    &PUBLIC_URL,
    &SMTP_URL,
    &MAIL_FROM,
    &MAIL_LEASE_SECS,
    &MAIL_POLL_MS,
    &MAIL_MAX_ATTEMPTS,
    &WEBHOOK_LEASE_SECS,
    &WEBHOOK_POLL_MS,
    &WEBHOOK_FIRST_RETRY_MS,
    &WEBHOOK_MAX_ATTEMPTS,
    &WEBHOOK_ALLOW_NETWORKS,
    &STRIPE_SECRET_KEY,
    &STRIPE_WEBHOOK_SECRET,
    &STRIPE_API_URL,
    &PAYMENT_WINDOW_SECS,
    &PAYMENT_POLL_MS,
    &PAYMENT_FIRST_RETRY_MS,
    &WALLET_PASS_TYPE_ID,
    &WALLET_TEAM_ID,
    &WALLET_CERT,
    &WALLET_KEY,
    &WALLET_WWDR_CERT,
    &GOOGLE_WALLET_KEY,
    &GOOGLE_WALLET_ISSUER_ID,
    &MAIL_ATTACH_PDF,
    &METRICS_TOKEN,
    &LOG_FORMAT,
    &RUST_LOG,
];

// The parsers of the entries above that are their own.

/// A PostgreSQL connection string, checked now so a typo stops the start.
fn connection_string(name: &str, raw: &str) -> anyhow::Result<Secret> {
    raw.parse::<tokio_postgres::Config>()
        .map_err(|_| anyhow::anyhow!("{name} is not a valid PostgreSQL connection string"))?;
    Ok(Secret::new(raw))
}

/// Space-separated origins, each `https://host[:port]` (or `http://` for
/// local testing); anything else is refused at start-up, since it ends up
/// in a security header.
fn origins(name: &str, raw: &str) -> anyhow::Result<Vec<String>> {
    raw.split_whitespace()
        .map(|origin| {
            let rest = origin
                .strip_prefix("https://")
                .or_else(|| origin.strip_prefix("http://"))
                .ok_or_else(|| anyhow::anyhow!("{name}: {origin:?} is not an http(s) origin"))?;
            anyhow::ensure!(
                !rest.is_empty()
                    && rest
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '*')),
                "{name}: {origin:?} is not an origin (scheme://host[:port], nothing after)"
            );
            Ok(origin.to_string())
        })
        .collect()
}

/// Addresses or CIDR blocks (`10.1.2.3`, `10.0.0.0/8`, `fd00::/8`),
/// separated by commas or spaces.
fn networks(name: &str, raw: &str) -> anyhow::Result<Vec<ipnet::IpNet>> {
    raw.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .map(|part| {
            part.parse::<ipnet::IpNet>()
                .or_else(|_| part.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    anyhow::anyhow!(
                        "{name}: {part:?} is not an address or a CIDR block (10.0.0.0/8)"
                    )
                })
        })
        .collect()
}

/// An http(s) origin, perhaps with a path, no trailing slash kept.
fn public_url(name: &str, raw: &str) -> anyhow::Result<String> {
    let value = raw.trim().trim_end_matches('/');
    let rest = value
        .strip_prefix("https://")
        .or_else(|| value.strip_prefix("http://"))
        .ok_or_else(|| anyhow::anyhow!("{name}: {value:?} is not an http(s) URL"))?;
    anyhow::ensure!(
        !rest.is_empty()
            && !rest
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '?' || c == '#'),
        "{name}: {value:?} is not a URL to prefix paths with"
    );
    Ok(value.to_string())
}

/// Stripe's own API base: where payment calls go unless a stand-in is named.
pub const STRIPE_API_URL_DEFAULT: &str = "https://api.stripe.com";
