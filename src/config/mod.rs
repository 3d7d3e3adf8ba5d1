//! Typed configuration, read from the environment once at start-up. Each
//! setting is one entry of the table in [`settings`] (its variable, default
//! and parser); [`Config::from_lookup`] reads every entry into its field.

use std::net::SocketAddr;
use std::time::Duration;

mod payments;
mod sections;
pub mod settings;
mod ticket_files;
mod values;
pub use payments::{PaymentSettings, StripeSettings};
pub use sections::{
    AbuseLimits, DatabaseSource, DbSettings, LimitClock, LiveLimits, MailSettings, QueueSettings,
    ReadReplica, ServerLimits, WaitlistSettings, WebhookSettings,
};
pub use ticket_files::TicketFileSettings;
pub use values::{LogFormat, Secret};

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
    pub queue: QueueSettings,
    pub webhooks: WebhookSettings,
    /// Stripe, and how long a buyer has to pay.
    pub payments: PaymentSettings,
    /// PDF tickets in the mail, and the wallets' signing keys.
    pub ticket_files: TicketFileSettings,
    /// When set, `/metrics` answers only `Authorization: Bearer <token>`.
    pub metrics_token: Option<Secret>,
    /// How long this instance keeps a hot event's seat map (as anonymous
    /// viewers see it) before reading it again; zero: always fresh.
    pub seat_map_cache: Duration,
    /// How often expired session rows are deleted (hourly; tests sweep
    /// sooner to see it happen).
    pub session_sweep_every: Duration,
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
pub const DEFAULT_LOG_FILTER: &str = settings::RUST_LOG.default;

/// The log settings, read before [`Config`] so that its errors are logged
/// as the operator asked: the format, and the filter (`RUST_LOG`, tracing's
/// own name, else info with tower_http and tokio_postgres at warn).
pub fn logging(lookup: impl Fn(&str) -> Option<String>) -> (LogFormat, String) {
    let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
    // Neither parser refuses a value: logging starts whatever is set.
    let format = settings::LOG_FORMAT.read(&get).ok().flatten();
    let filter = settings::RUST_LOG.read(&get).ok();
    (
        format.unwrap_or(LogFormat::Text),
        filter.unwrap_or_else(|| DEFAULT_LOG_FILTER.to_string()),
    )
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
        let get = &get;
        use settings as s;
        let database = match s::DATABASE_URL.read(get)? {
            Some(url) => DatabaseSource::Url(url),
            None => DatabaseSource::Embedded {
                data_dir: s::DATA_DIR.read(get)?,
            },
        };
        // Read (and checked) whether or not a replica is set.
        let max_lag = s::READ_MAX_LAG_MS.read(get)?;
        let read_replica = s::READ_DATABASE_URL.read(get)?.map(|url| ReadReplica {
            url,
            max_lag,
            measure_every: Duration::from_millis(250),
        });
        let config = Config {
            database,
            read_replica,
            addr: s::ADDR.read(get)?,
            hold_ttl: s::HOLD_TTL_SECS.read(get)?,
            hold_extension: s::HOLD_EXTEND_SECS.read(get)?,
            max_seats_per_hold: s::MAX_SEATS_PER_HOLD.read(get)?,
            db: DbSettings {
                pool_size: s::DB_POOL_SIZE.read(get)?,
                pool_wait: s::DB_POOL_WAIT_MS.read(get)?,
                lock_timeout: s::DB_LOCK_TIMEOUT_MS.read(get)?,
                statement_timeout: s::DB_STATEMENT_TIMEOUT_MS.read(get)?,
            },
            secure_cookies: s::SECURE_COOKIES.read(get),
            limits: AbuseLimits {
                max_holds_per_ip: s::MAX_HOLDS_PER_IP.read(get)?,
                max_holds_per_key: s::MAX_HOLDS_PER_KEY.read(get)?,
                hold_requests_per_session: s::HOLD_REQUESTS_PER_MINUTE.read(get)?,
                hold_requests_per_ip: s::HOLD_REQUESTS_PER_MINUTE_PER_IP.read(get)?,
                hold_requests_per_key: s::HOLD_REQUESTS_PER_MINUTE_PER_KEY.read(get)?,
                code_tries_per_event: s::CODE_TRIES_PER_EVENT_PER_MINUTE.read(get)?,
                login_failures_per_account: s::LOGIN_FAILURES_PER_ACCOUNT.read(get)?,
                login_failures_per_ip: s::LOGIN_FAILURES_PER_IP.read(get)?,
                reads_per_ip: s::READS_PER_IP.read(get)?,
                clock: LimitClock::Database,
            },
            trust_forwarded_for: s::TRUST_FORWARDED_FOR.read(get),
            server: ServerLimits {
                header_read_timeout: s::HTTP_HEADER_TIMEOUT_SECS.read(get)?,
                body_read_timeout: s::HTTP_BODY_TIMEOUT_SECS.read(get)?,
                request_timeout: s::HTTP_REQUEST_TIMEOUT_SECS.read(get)?,
                max_connections: s::MAX_CONNECTIONS.read(get)?,
                max_connections_per_ip: s::MAX_CONNECTIONS_PER_IP.read(get)?,
                shutdown_grace: s::SHUTDOWN_GRACE_SECS.read(get)?,
            },
            live: LiveLimits {
                max_streams: s::LIVE_STREAMS_MAX.read(get)?,
                max_streams_per_ip: s::LIVE_STREAMS_PER_IP.read(get)?,
                poll_every: s::LIVE_POLL_MS.read(get)?,
            },
            overview_above_seats: s::OVERVIEW_ABOVE_SEATS.read(get)?,
            frame_ancestors: s::FRAME_ANCESTORS.read(get)?.unwrap_or_default(),
            metrics_token: s::METRICS_TOKEN.read(get)?,
            seat_map_cache: s::SEAT_MAP_CACHE_MS.read(get)?,
            public_url: s::PUBLIC_URL.read(get)?,
            queue: QueueSettings {
                demo_opens_in: s::DEMO_QUEUE_OPENS_SECS.read(get)?,
                demo_proof_of_work: !s::DEMO_QUEUE_WITHOUT_PUZZLE.read(get),
                auto_claim_p95: s::QUEUE_CLAIM_P95_MS.read(get)?,
                free_joins_per_minute: s::QUEUE_FREE_JOINS_PER_MINUTE.read(get)?,
                share_percent: s::QUEUE_SHARE_PERCENT.read(get)?,
                share_min_seats: s::QUEUE_SHARE_MIN_SEATS.read(get)?,
                first_claim: s::QUEUE_FIRST_CLAIM_SECS.read(get)?,
                ..QueueSettings::default()
            },
            waitlist: WaitlistSettings {
                offer_for: s::WAITLIST_OFFER_SECS.read(get)?,
                entries_per_client: s::WAITLIST_ENTRIES_PER_ADDRESS.read(get)?,
                ..WaitlistSettings::default()
            },
            mail: MailSettings {
                smtp_url: s::SMTP_URL.read(get)?,
                from: s::MAIL_FROM.read(get)?,
                lease: s::MAIL_LEASE_SECS.read(get)?,
                poll_every: s::MAIL_POLL_MS.read(get)?,
                max_attempts: s::MAIL_MAX_ATTEMPTS.read(get)?,
                attach_pdf: s::MAIL_ATTACH_PDF.read(get),
            },
            webhooks: WebhookSettings {
                lease: s::WEBHOOK_LEASE_SECS.read(get)?,
                poll_every: s::WEBHOOK_POLL_MS.read(get)?,
                first_retry: s::WEBHOOK_FIRST_RETRY_MS.read(get)?,
                max_attempts: s::WEBHOOK_MAX_ATTEMPTS.read(get)?,
                allowed_networks: s::WEBHOOK_ALLOW_NETWORKS.read(get)?.unwrap_or_default(),
            },
            payments: PaymentSettings::from_lookup(get)?,
            ticket_files: TicketFileSettings::from_lookup(get)?,
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
            hold_ttl: settings::HOLD_TTL_SECS.default(),
            hold_extension: settings::HOLD_EXTEND_SECS.default(),
            max_seats_per_hold: settings::MAX_SEATS_PER_HOLD.default,
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
            overview_above_seats: settings::OVERVIEW_ABOVE_SEATS.default,
            frame_ancestors: Vec::new(),
            metrics_token: None,
            // Tests read a map right after changing it.
            seat_map_cache: Duration::ZERO,
            public_url: None,
            mail: MailSettings::default(),
            waitlist: WaitlistSettings::default(),
            queue: QueueSettings::default(),
            webhooks: WebhookSettings::default(),
            payments: PaymentSettings::default(),
            ticket_files: TicketFileSettings::default(),
            session_sweep_every: DEFAULT_SESSION_SWEEP_EVERY,
        }
    }
}

const DEFAULT_SESSION_SWEEP_EVERY: Duration = Duration::from_secs(3600);

#[cfg(test)]
mod tests;
