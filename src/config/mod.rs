//! Typed configuration, read from the environment once at start-up.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

mod payments;
mod values;
pub use payments::{PaymentSettings, STRIPE_API_URL, StripeSettings};
pub use values::Secret;
use values::{flag, parse, parse_in};

#[derive(Debug, Clone)]
pub struct Config {
    pub database: DatabaseSource,
    /// A streaming replica for reads that may be a moment behind
    /// (`SEATMAP_READ_DATABASE_URL`), and how far behind it may be.
    pub read_replica: Option<ReadReplica>,
    pub addr: SocketAddr,
    pub hold_ttl: Duration,
    /// What "Need more time?" adds, once per hold, in its last 2 minutes.
    pub hold_extension: Duration,
    pub max_seats_per_hold: u32,
    pub db: DbSettings,
    pub secure_cookies: bool,
    pub limits: AbuseLimits,
    /// Take the client's address from the last `X-Forwarded-For` entry
    /// (set this only behind a proxy that writes that header).
    pub trust_forwarded_for: bool,
    pub server: ServerLimits,
    pub live: LiveLimits,
    /// Events with more seats than this open on an overview of section
    /// shapes; smaller ones show every seat at once.
    pub overview_above_seats: u32,
    /// Origins allowed to show the buyer pages in a frame (CSP
    /// frame-ancestors); empty: none.
    pub frame_ancestors: Vec<String>,
    /// Where buyers reach the app ("https://tickets.example.com"), for
    /// links in e-mail; None: `http://<the bound address>`.
    pub public_url: Option<String>,
    pub mail: MailSettings,
    pub waitlist: WaitlistSettings,
    pub webhooks: WebhookSettings,
    /// Stripe, and how long a buyer has to pay.
    pub payments: PaymentSettings,
    /// When set, `/metrics` answers only `Authorization: Bearer <token>`.
    pub metrics_token: Option<Secret>,
    /// How long this instance keeps a hot event's seat map (as anonymous
    /// viewers see it) before reading it again; zero: always fresh.
    pub seat_map_cache: Duration,
    /// How often expired session rows are deleted (hourly; tests sweep
    /// sooner to see it happen).
    pub session_sweep_every: Duration,
}

/// Which clock the limits' windows follow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LimitClock {
    /// The database's `now()`: what every instance shares.
    #[default]
    Database,
    /// Always this instant: no window ever ends (for tests).
    Frozen(time::OffsetDateTime),
}

impl LimitClock {
    pub fn frozen(self) -> Option<time::OffsetDateTime> {
        match self {
            LimitClock::Database => None,
            LimitClock::Frozen(at) => Some(at),
        }
    }
}

/// Sending webhook deliveries.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    /// How long a sender holds a delivery; each request times out after a
    /// third of it.
    pub lease: Duration,
    pub poll_every: Duration,
    /// The first retry's wait; each next one doubles, up to an hour.
    pub first_retry: Duration,
    /// After this many failed attempts a delivery is marked failed; staff
    /// can send it again by hand.
    pub max_attempts: i32,
    /// Networks deliveries may reach although they are private or local
    /// (an internal receiver); every other target must be public.
    pub allowed_networks: Vec<ipnet::IpNet>,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            lease: Duration::from_secs(60),
            poll_every: Duration::from_secs(1),
            first_retry: Duration::from_secs(10),
            max_attempts: 12,
            allowed_networks: Vec::new(),
        }
    }
}

/// The waitlist's offers.
#[derive(Debug, Clone)]
pub struct WaitlistSettings {
    /// How long a waiting party has to buy the seats it is offered.
    pub offer_for: Duration,
    /// How often this instance's offer worker looks for work; None: no
    /// worker (tests that run its passes themselves).
    pub every: Option<Duration>,
    /// The most live places one client (an address, an IPv6 /64, or an
    /// API key) may have on one event's waitlist.
    pub entries_per_client: u32,
}

impl Default for WaitlistSettings {
    fn default() -> WaitlistSettings {
        WaitlistSettings {
            offer_for: Duration::from_secs(1800),
            every: Some(Duration::from_secs(2)),
            entries_per_client: 4,
        }
    }
}

/// Sending the outbox.
#[derive(Debug, Clone)]
pub struct MailSettings {
    /// `smtp://host:port`, `smtps://user:pass@host` or with `?tls=required`
    /// (lettre's URL form). None: mail waits in the outbox.
    pub smtp_url: Option<Secret>,
    /// The From mailbox, "Box office <tickets@example.com>".
    pub from: String,
    /// How long a worker holds a row it is sending; a worker that dies
    /// mid-send delays that message by this much.
    pub lease: Duration,
    /// How often an idle worker looks for due mail.
    pub poll_every: Duration,
    /// After this many failed attempts a message is marked failed; staff
    /// can send it again by hand.
    pub max_attempts: i32,
}

impl Default for MailSettings {
    fn default() -> Self {
        MailSettings {
            smtp_url: None,
            from: "Seatmap box office <tickets@seatmap.invalid>".into(),
            lease: Duration::from_secs(120),
            poll_every: Duration::from_secs(1),
            max_attempts: 12,
        }
    }
}

/// What one client can hold open. The connection counts are this
/// instance's own (they bound its file descriptors), not shared.
#[derive(Debug, Clone)]
pub struct ServerLimits {
    /// A request head must arrive within this; it is also how long an idle
    /// keep-alive connection stays open.
    pub header_read_timeout: Duration,
    /// The longest a request body may go without sending anything more.
    pub body_read_timeout: Duration,
    /// A whole request, from its head to the head of its answer (reading
    /// the body included; a live stream's updates afterwards are not).
    pub request_timeout: Duration,
    /// Open connections, all clients together.
    pub max_connections: usize,
    /// Open connections from one client address (0 = no per-address cap).
    pub max_connections_per_ip: usize,
    /// How long a shutdown waits for requests in flight before closing them.
    pub shutdown_grace: Duration,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            max_connections: 4096,
            max_connections_per_ip: 256,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Open live-map streams on this instance, and how fresh they are.
#[derive(Debug, Clone)]
pub struct LiveLimits {
    pub max_streams: usize,
    /// From one client address (0 = no per-address cap).
    pub max_streams_per_ip: usize,
    /// How often the live feed asks the database what has committed: the
    /// most a change waits before this instance's open pages hear of it.
    pub poll_every: Duration,
}

impl Default for LiveLimits {
    fn default() -> Self {
        LiveLimits {
            max_streams: 2000,
            max_streams_per_ip: 64,
            poll_every: Duration::from_millis(50),
        }
    }
}

/// Limits against hoarding and guessing. Counted in PostgreSQL, so every
/// instance shares them and a new session doesn't reset them. 0 turns one off.
#[derive(Debug, Clone)]
pub struct AbuseLimits {
    /// Live holds one client address may have across all its sessions.
    pub max_holds_per_ip: u32,
    /// Live holds made with one API key, across all its customers.
    pub max_holds_per_key: u32,
    /// Hold requests per minute from one session.
    pub hold_requests_per_session: u32,
    /// Hold requests per minute from one client address.
    pub hold_requests_per_ip: u32,
    /// Hold requests per minute made with one API key (all its customers).
    pub hold_requests_per_key: u32,
    /// Failed staff logins per 15 minutes for one account.
    pub login_failures_per_account: u32,
    /// Failed staff logins per 15 minutes from one client address.
    pub login_failures_per_ip: u32,
    /// Public reads (maps, lists) one client address may have in flight
    /// at once; more wait their turn.
    pub reads_per_ip: usize,
    /// Which clock the per-minute and per-15-minute windows follow (the
    /// database's; tests freeze it so a window can't end mid-test).
    pub clock: LimitClock,
}

impl AbuseLimits {
    /// Every limit off: for tests that simulate many buyers from one address.
    pub fn off() -> AbuseLimits {
        AbuseLimits {
            max_holds_per_ip: 0,
            max_holds_per_key: 0,
            hold_requests_per_session: 0,
            hold_requests_per_ip: 0,
            hold_requests_per_key: 0,
            login_failures_per_account: 0,
            login_failures_per_ip: 0,
            reads_per_ip: 0,
            clock: LimitClock::Database,
        }
    }
}

/// Where anonymous reads go when a replica is set up (see `db::replica`).
#[derive(Debug, Clone)]
pub struct ReadReplica {
    pub url: Secret,
    /// Past this lag behind the primary, reads go to the primary.
    pub max_lag: Duration,
    /// How often the lag is measured.
    pub measure_every: Duration,
}

#[derive(Debug, Clone)]
pub enum DatabaseSource {
    /// `DATABASE_URL` was set.
    Url(Secret),
    /// A private cluster in `<data_dir>/pgdata` (`SEATMAP_DATA_DIR`); `None`
    /// picks the default, see [`pg_embedded::default_data_dir`].
    Embedded { data_dir: Option<PathBuf> },
}

/// Pool and timeout settings. Short timeouts keep a stuck lock or a slow
/// database from turning into requests that hang: they fail fast with 503.
#[derive(Debug, Clone)]
pub struct DbSettings {
    pub pool_size: usize,
    pub pool_wait: Duration,
    pub lock_timeout: Duration,
    pub statement_timeout: Duration,
}

impl Default for DbSettings {
    fn default() -> Self {
        DbSettings {
            pool_size: 16,
            pool_wait: Duration::from_secs(2),
            lock_timeout: Duration::from_secs(2),
            statement_timeout: Duration::from_secs(5),
        }
    }
}

pub const DEFAULT_HOLD_TTL_SECS: u64 = 480;
pub const DEFAULT_MAX_SEATS_PER_HOLD: u32 = 10;
pub const DEFAULT_HOLD_EXTEND_SECS: u64 = 240;
pub const DEFAULT_OVERVIEW_ABOVE_SEATS: u32 = 2_000;

/// Space-separated origins, each `https://host[:port]` (or `http://` for
/// local testing); anything else is refused at start-up, since it ends up
/// in a security header.
fn frame_ancestors(value: Option<&str>) -> anyhow::Result<Vec<String>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    value
        .split_whitespace()
        .map(|origin| {
            let rest = origin
                .strip_prefix("https://")
                .or_else(|| origin.strip_prefix("http://"))
                .with_context(|| {
                    format!("SEATMAP_FRAME_ANCESTORS: {origin:?} is not an http(s) origin")
                })?;
            anyhow::ensure!(
                !rest.is_empty()
                    && rest
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '*')),
                "SEATMAP_FRAME_ANCESTORS: {origin:?} is not an origin (scheme://host[:port], nothing after)"
            );
            Ok(origin.to_string())
        })
        .collect()
}

/// `SEATMAP_WEBHOOK_ALLOW_NETWORKS`: addresses or CIDR blocks
/// (`10.1.2.3`, `10.0.0.0/8`, `fd00::/8`), separated by commas or spaces.
fn networks(value: Option<&str>) -> anyhow::Result<Vec<ipnet::IpNet>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .map(|part| {
            part.parse::<ipnet::IpNet>()
                .or_else(|_| part.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    anyhow::anyhow!(
                        "SEATMAP_WEBHOOK_ALLOW_NETWORKS: {part:?} is not an address or a CIDR block (10.0.0.0/8)"
                    )
                })
        })
        .collect()
}

/// `SEATMAP_PUBLIC_URL`: an http(s) origin, perhaps with a path, no
/// trailing slash kept.
fn public_url(value: Option<&str>) -> anyhow::Result<Option<String>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let value = value.trim().trim_end_matches('/');
    let rest = value
        .strip_prefix("https://")
        .or_else(|| value.strip_prefix("http://"))
        .with_context(|| format!("SEATMAP_PUBLIC_URL: {value:?} is not an http(s) URL"))?;
    anyhow::ensure!(
        !rest.is_empty()
            && !rest
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '?' || c == '#'),
        "SEATMAP_PUBLIC_URL: {value:?} is not a URL to prefix paths with"
    );
    Ok(Some(value.to_string()))
}

/// Names read before every variable had the `SEATMAP_` prefix, with the
/// name that replaced each. An old name still works when the new one is
/// unset; start-up warns about it ([`old_names_in_use`]).
pub const RENAMED: &[(&str, &str)] = &[
    ("HOLD_TTL_SECS", "SEATMAP_HOLD_TTL_SECS"),
    ("HOLD_EXTEND_SECS", "SEATMAP_HOLD_EXTEND_SECS"),
    ("MAX_SEATS_PER_HOLD", "SEATMAP_MAX_SEATS_PER_HOLD"),
    ("DATABASE_POOL_SIZE", "SEATMAP_DB_POOL_SIZE"),
    ("MAX_HOLDS_PER_IP", "SEATMAP_MAX_HOLDS_PER_IP"),
    (
        "HOLD_REQUESTS_PER_MINUTE_PER_IP",
        "SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_IP",
    ),
    (
        "HOLD_REQUESTS_PER_MINUTE_PER_KEY",
        "SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_KEY",
    ),
    (
        "HOLD_REQUESTS_PER_MINUTE",
        "SEATMAP_HOLD_REQUESTS_PER_MINUTE",
    ),
    (
        "LOGIN_FAILURES_PER_ACCOUNT",
        "SEATMAP_LOGIN_FAILURES_PER_ACCOUNT",
    ),
    ("LOGIN_FAILURES_PER_IP", "SEATMAP_LOGIN_FAILURES_PER_IP"),
    (
        "HTTP_HEADER_TIMEOUT_SECS",
        "SEATMAP_HTTP_HEADER_TIMEOUT_SECS",
    ),
    ("MAX_CONNECTIONS_PER_IP", "SEATMAP_MAX_CONNECTIONS_PER_IP"),
    ("MAX_CONNECTIONS", "SEATMAP_MAX_CONNECTIONS"),
    ("SHUTDOWN_GRACE_SECS", "SEATMAP_SHUTDOWN_GRACE_SECS"),
    ("LIVE_STREAMS_MAX", "SEATMAP_LIVE_STREAMS_MAX"),
    ("LIVE_STREAMS_PER_IP", "SEATMAP_LIVE_STREAMS_PER_IP"),
];

fn old_name_of(new: &str) -> Option<&'static str> {
    RENAMED.iter().find(|(_, n)| *n == new).map(|(old, _)| *old)
}

/// An old name set in this environment, for the start-up warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OldName {
    pub old: &'static str,
    pub new: &'static str,
    /// Both are set: the new name's value is used, the old one ignored.
    pub ignored: bool,
}

fn is_set(lookup: &impl Fn(&str) -> Option<String>, name: &str) -> bool {
    lookup(name).is_some_and(|value| !value.trim().is_empty())
}

/// The old names set (to something) in this environment.
pub fn old_names_in_use(lookup: impl Fn(&str) -> Option<String>) -> Vec<OldName> {
    RENAMED
        .iter()
        .filter(|(old, _)| is_set(&lookup, old))
        .map(|&(old, new)| OldName {
            old,
            new,
            ignored: is_set(&lookup, new),
        })
        .collect()
}

/// What is logged when `RUST_LOG` is unset (or not a filter).
pub const DEFAULT_LOG_FILTER: &str = "info,tower_http=warn,tokio_postgres=warn";

/// How log lines are written: `SEATMAP_LOG_FORMAT=json` gives one JSON
/// object a line; anything else, text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

/// The log settings, read before [`Config`] so that its errors are logged
/// as the operator asked: the format, and the filter (`RUST_LOG`, tracing's
/// own name, else info with tower_http and tokio_postgres at warn).
pub fn logging(lookup: impl Fn(&str) -> Option<String>) -> (LogFormat, String) {
    let format = match lookup("SEATMAP_LOG_FORMAT").as_deref().map(str::trim) {
        Some("json") => LogFormat::Json,
        _ => LogFormat::Text,
    };
    // tokio_postgres logs the server's NOTICEs at info ("relation
    // refinery_schema_history already exists, skipping" on every start).
    let filter = lookup("RUST_LOG")
        .filter(|f| !f.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_LOG_FILTER.to_string());
    (format, filter)
}

impl Config {
    pub fn from_env() -> anyhow::Result<Config> {
        Self::from_lookup_naming_old(|name| std::env::var(name).ok())
    }

    /// Same as [`Config::from_env`] over any lookup, so parsing is testable
    /// without touching the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Config> {
        let get = |name: &str| {
            let value = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
            value(name).or_else(|| old_name_of(name).and_then(value))
        };
        let database = match get("DATABASE_URL") {
            Some(url) => DatabaseSource::Url(Secret::new(url)),
            None => DatabaseSource::Embedded {
                data_dir: get("SEATMAP_DATA_DIR").map(PathBuf::from),
            },
        };
        // Read (and checked) whether or not a replica is set.
        let read_max_lag = Duration::from_millis(parse_in(
            &get,
            "SEATMAP_READ_MAX_LAG_MS",
            1_000,
            0..=600_000,
        )?);
        let read_replica = match get("SEATMAP_READ_DATABASE_URL") {
            Some(url) => {
                url.parse::<tokio_postgres::Config>().map_err(|_| {
                    anyhow::anyhow!(
                        "SEATMAP_READ_DATABASE_URL is not a valid PostgreSQL connection string"
                    )
                })?;
                Some(ReadReplica {
                    url: Secret::new(url),
                    max_lag: read_max_lag,
                    measure_every: Duration::from_millis(250),
                })
            }
            None => None,
        };
        let defaults = DbSettings::default();
        let server = ServerLimits::default();
        let live = LiveLimits::default();
        let mail = MailSettings::default();
        let webhooks = WebhookSettings::default();
        let config = Config {
            database,
            read_replica,
            addr: parse(&get, "SEATMAP_ADDR", "127.0.0.1:3000".parse()?)?,
            hold_ttl: Duration::from_secs(parse_in(
                &get,
                "SEATMAP_HOLD_TTL_SECS",
                DEFAULT_HOLD_TTL_SECS,
                1..=86_400,
            )?),
            hold_extension: Duration::from_secs(parse_in(
                &get,
                "SEATMAP_HOLD_EXTEND_SECS",
                DEFAULT_HOLD_EXTEND_SECS,
                1..=3600,
            )?),
            max_seats_per_hold: parse_in(
                &get,
                "SEATMAP_MAX_SEATS_PER_HOLD",
                DEFAULT_MAX_SEATS_PER_HOLD,
                1..=100,
            )?,
            db: DbSettings {
                pool_size: parse_in(&get, "SEATMAP_DB_POOL_SIZE", defaults.pool_size, 1..=500)?,
                pool_wait: Duration::from_millis(parse_in(
                    &get,
                    "SEATMAP_DB_POOL_WAIT_MS",
                    defaults.pool_wait.as_millis() as u64,
                    10..=60_000,
                )?),
                lock_timeout: Duration::from_millis(parse_in(
                    &get,
                    "SEATMAP_DB_LOCK_TIMEOUT_MS",
                    defaults.lock_timeout.as_millis() as u64,
                    10..=600_000,
                )?),
                statement_timeout: Duration::from_millis(parse_in(
                    &get,
                    "SEATMAP_DB_STATEMENT_TIMEOUT_MS",
                    defaults.statement_timeout.as_millis() as u64,
                    10..=600_000,
                )?),
            },
            secure_cookies: flag(&get, "SEATMAP_SECURE_COOKIES"),
            limits: AbuseLimits {
                max_holds_per_ip: parse(&get, "SEATMAP_MAX_HOLDS_PER_IP", 20)?,
                max_holds_per_key: parse(&get, "SEATMAP_MAX_HOLDS_PER_KEY", 100)?,
                hold_requests_per_session: parse(&get, "SEATMAP_HOLD_REQUESTS_PER_MINUTE", 30)?,
                hold_requests_per_ip: parse(&get, "SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_IP", 300)?,
                hold_requests_per_key: parse(
                    &get,
                    "SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_KEY",
                    3000,
                )?,
                login_failures_per_account: parse(&get, "SEATMAP_LOGIN_FAILURES_PER_ACCOUNT", 5)?,
                login_failures_per_ip: parse(&get, "SEATMAP_LOGIN_FAILURES_PER_IP", 20)?,
                reads_per_ip: parse(&get, "SEATMAP_READS_PER_IP", 4)?,
                clock: LimitClock::Database,
            },
            trust_forwarded_for: flag(&get, "SEATMAP_TRUST_FORWARDED_FOR"),
            server: ServerLimits {
                header_read_timeout: Duration::from_secs(parse_in(
                    &get,
                    "SEATMAP_HTTP_HEADER_TIMEOUT_SECS",
                    server.header_read_timeout.as_secs(),
                    1..=300,
                )?),
                body_read_timeout: Duration::from_secs(parse_in(
                    &get,
                    "SEATMAP_HTTP_BODY_TIMEOUT_SECS",
                    server.body_read_timeout.as_secs(),
                    1..=300,
                )?),
                request_timeout: Duration::from_secs(parse_in(
                    &get,
                    "SEATMAP_HTTP_REQUEST_TIMEOUT_SECS",
                    server.request_timeout.as_secs(),
                    1..=3600,
                )?),
                max_connections: parse_in(
                    &get,
                    "SEATMAP_MAX_CONNECTIONS",
                    server.max_connections,
                    16..=1_000_000,
                )?,
                max_connections_per_ip: parse(
                    &get,
                    "SEATMAP_MAX_CONNECTIONS_PER_IP",
                    server.max_connections_per_ip,
                )?,
                shutdown_grace: Duration::from_secs(parse_in(
                    &get,
                    "SEATMAP_SHUTDOWN_GRACE_SECS",
                    server.shutdown_grace.as_secs(),
                    0..=600,
                )?),
            },
            live: LiveLimits {
                max_streams: parse_in(
                    &get,
                    "SEATMAP_LIVE_STREAMS_MAX",
                    live.max_streams,
                    1..=1_000_000,
                )?,
                max_streams_per_ip: parse(
                    &get,
                    "SEATMAP_LIVE_STREAMS_PER_IP",
                    live.max_streams_per_ip,
                )?,
                poll_every: Duration::from_millis(parse_in(
                    &get,
                    "SEATMAP_LIVE_POLL_MS",
                    live.poll_every.as_millis() as u64,
                    5..=10_000,
                )?),
            },
            overview_above_seats: parse_in(
                &get,
                "SEATMAP_OVERVIEW_ABOVE_SEATS",
                DEFAULT_OVERVIEW_ABOVE_SEATS,
                0..=1_000_000,
            )?,
            frame_ancestors: frame_ancestors(get("SEATMAP_FRAME_ANCESTORS").as_deref())?,
            metrics_token: get("SEATMAP_METRICS_TOKEN").map(Secret::new),
            seat_map_cache: Duration::from_millis(parse_in(
                &get,
                "SEATMAP_SEAT_MAP_CACHE_MS",
                500,
                0..=5_000,
            )?),
            public_url: public_url(get("SEATMAP_PUBLIC_URL").as_deref())?,
            waitlist: WaitlistSettings {
                offer_for: Duration::from_secs(parse_in(
                    &get,
                    "SEATMAP_WAITLIST_OFFER_SECS",
                    1800,
                    10..=86_400,
                )?),
                entries_per_client: parse_in(
                    &get,
                    "SEATMAP_WAITLIST_ENTRIES_PER_ADDRESS",
                    4,
                    1..=1_000,
                )?,
                ..WaitlistSettings::default()
            },
            mail: MailSettings {
                smtp_url: get("SEATMAP_SMTP_URL").map(Secret::new),
                from: get("SEATMAP_MAIL_FROM").unwrap_or(mail.from),
                lease: Duration::from_secs(parse_in(
                    &get,
                    "SEATMAP_MAIL_LEASE_SECS",
                    mail.lease.as_secs(),
                    3..=3600,
                )?),
                poll_every: Duration::from_millis(parse_in(
                    &get,
                    "SEATMAP_MAIL_POLL_MS",
                    mail.poll_every.as_millis() as u64,
                    10..=60_000,
                )?),
                max_attempts: parse_in(
                    &get,
                    "SEATMAP_MAIL_MAX_ATTEMPTS",
                    mail.max_attempts,
                    1..=100,
                )?,
            },
            webhooks: WebhookSettings {
                lease: Duration::from_secs(parse_in(
                    &get,
                    "SEATMAP_WEBHOOK_LEASE_SECS",
                    webhooks.lease.as_secs(),
                    3..=3600,
                )?),
                poll_every: Duration::from_millis(parse_in(
                    &get,
                    "SEATMAP_WEBHOOK_POLL_MS",
                    webhooks.poll_every.as_millis() as u64,
                    10..=60_000,
                )?),
                first_retry: Duration::from_millis(parse_in(
                    &get,
                    "SEATMAP_WEBHOOK_FIRST_RETRY_MS",
                    webhooks.first_retry.as_millis() as u64,
                    10..=3_600_000,
                )?),
                max_attempts: parse_in(
                    &get,
                    "SEATMAP_WEBHOOK_MAX_ATTEMPTS",
                    webhooks.max_attempts,
                    1..=100,
                )?,
                allowed_networks: networks(get("SEATMAP_WEBHOOK_ALLOW_NETWORKS").as_deref())?,
            },
            payments: PaymentSettings::from_lookup(&get)?,
            session_sweep_every: DEFAULT_SESSION_SWEEP_EVERY,
        };
        Ok(config)
    }

    /// [`Config::from_lookup`], with an error about a value given under an
    /// old name saying that name, as the operator wrote it.
    pub fn from_lookup_naming_old(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<Config> {
        Config::from_lookup(&lookup).map_err(|err| {
            let text = format!("{err:#}");
            let given_as_old = old_names_in_use(&lookup)
                .into_iter()
                .filter(|name| !name.ignored)
                .find(|name| text.contains(name.new));
            match given_as_old {
                Some(name) => anyhow::anyhow!(
                    "{} (set as {}, its old name)",
                    text.replacen(name.new, name.old, 1),
                    name.old
                ),
                None => err,
            }
        })
    }

    /// A configuration for tests: given database, ephemeral port, defaults elsewhere.
    pub fn for_tests(database: DatabaseSource) -> Config {
        Config {
            database,
            read_replica: None,
            addr: "127.0.0.1:0".parse().expect("literal address"),
            hold_ttl: Duration::from_secs(DEFAULT_HOLD_TTL_SECS),
            hold_extension: Duration::from_secs(DEFAULT_HOLD_EXTEND_SECS),
            max_seats_per_hold: DEFAULT_MAX_SEATS_PER_HOLD,
            db: DbSettings::default(),
            secure_cookies: false,
            limits: AbuseLimits::off(),
            trust_forwarded_for: false,
            // Tests simulate many buyers from one address.
            server: ServerLimits {
                max_connections_per_ip: 0,
                ..ServerLimits::default()
            },
            live: LiveLimits {
                max_streams_per_ip: 0,
                ..LiveLimits::default()
            },
            overview_above_seats: DEFAULT_OVERVIEW_ABOVE_SEATS,
            frame_ancestors: Vec::new(),
            metrics_token: None,
            // Tests read a map right after changing it.
            seat_map_cache: Duration::ZERO,
            public_url: None,
            mail: MailSettings::default(),
            waitlist: WaitlistSettings::default(),
            webhooks: WebhookSettings::default(),
            payments: PaymentSettings::default(),
            session_sweep_every: DEFAULT_SESSION_SWEEP_EVERY,
        }
    }
}

const DEFAULT_SESSION_SWEEP_EVERY: Duration = Duration::from_secs(3600);

#[cfg(test)]
mod tests;
