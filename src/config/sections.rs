//! The parts of [`Config`](super::Config), a struct for each group of
//! settings; their defaults are the table's (`settings`).

use std::path::PathBuf;
use std::time::Duration;

use super::settings;
use super::values::Secret;

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
            lease: settings::WEBHOOK_LEASE_SECS.default(),
            poll_every: settings::WEBHOOK_POLL_MS.default(),
            first_retry: settings::WEBHOOK_FIRST_RETRY_MS.default(),
            max_attempts: settings::WEBHOOK_MAX_ATTEMPTS.default,
            allowed_networks: Vec::new(),
        }
    }
}

/// The waiting room's worker.
#[derive(Debug, Clone)]
pub struct QueueSettings {
    /// How often this instance reads the queues' figures and offers to
    /// admit a batch; None: no worker (tests that run its steps themselves).
    pub every: Option<Duration>,
    /// The number of buyers shopping at once an "auto" queue starts from,
    /// before its worker has measured the house.
    pub auto_start_target: i64,
    /// The claims' p95 an "auto" queue paces its admissions to.
    pub auto_claim_p95: Duration,
    /// The admissions per minute an "auto" queue's waiting times are
    /// estimated with.
    pub auto_rate_estimate: u32,
    /// How long after the demo arena is first seeded its queue opens.
    pub demo_opens_in: Duration,
    /// Whether the demo arena's queue asks every join for a proof of work.
    pub demo_proof_of_work: bool,
    /// Joins per client and event a minute before each needs a proof of work.
    pub free_joins_per_minute: u32,
    /// One client's admitted buyers hold at most this percent of the house…
    pub share_percent: u32,
    /// …or this many seats, whichever is more.
    pub share_min_seats: u32,
    /// How long an admission waits for its first claim.
    pub first_claim: Duration,
}

impl Default for QueueSettings {
    fn default() -> QueueSettings {
        QueueSettings {
            every: Some(Duration::from_secs(1)),
            auto_start_target: 50,
            auto_claim_p95: settings::QUEUE_CLAIM_P95_MS.default(),
            auto_rate_estimate: 600,
            demo_opens_in: settings::DEMO_QUEUE_OPENS_SECS.default(),
            demo_proof_of_work: true,
            free_joins_per_minute: settings::QUEUE_FREE_JOINS_PER_MINUTE.default,
            share_percent: settings::QUEUE_SHARE_PERCENT.default,
            share_min_seats: settings::QUEUE_SHARE_MIN_SEATS.default,
            first_claim: settings::QUEUE_FIRST_CLAIM_SECS.default(),
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
            offer_for: settings::WAITLIST_OFFER_SECS.default(),
            every: Some(Duration::from_secs(2)),
            entries_per_client: settings::WAITLIST_ENTRIES_PER_ADDRESS.default,
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
    /// `SEATMAP_MAIL_ATTACH_PDF`: the confirmation carries the tickets as
    /// a PDF attachment, not only a link to it.
    pub attach_pdf: bool,
}

impl Default for MailSettings {
    fn default() -> Self {
        MailSettings {
            smtp_url: None,
            from: settings::MAIL_FROM.default.into(),
            lease: settings::MAIL_LEASE_SECS.default(),
            poll_every: settings::MAIL_POLL_MS.default(),
            max_attempts: settings::MAIL_MAX_ATTEMPTS.default,
            attach_pdf: false,
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
            header_read_timeout: settings::HTTP_HEADER_TIMEOUT_SECS.default(),
            body_read_timeout: settings::HTTP_BODY_TIMEOUT_SECS.default(),
            request_timeout: settings::HTTP_REQUEST_TIMEOUT_SECS.default(),
            max_connections: settings::MAX_CONNECTIONS.default,
            max_connections_per_ip: settings::MAX_CONNECTIONS_PER_IP.default,
            shutdown_grace: settings::SHUTDOWN_GRACE_SECS.default(),
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
            max_streams: settings::LIVE_STREAMS_MAX.default,
            max_streams_per_ip: settings::LIVE_STREAMS_PER_IP.default,
            poll_every: settings::LIVE_POLL_MS.default(),
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
    /// Promo code tries per minute on one event, all callers together.
    pub code_tries_per_event: u32,
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
            code_tries_per_event: 0,
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
            pool_size: settings::DB_POOL_SIZE.default,
            pool_wait: settings::DB_POOL_WAIT_MS.default(),
            lock_timeout: settings::DB_LOCK_TIMEOUT_MS.default(),
            statement_timeout: settings::DB_STATEMENT_TIMEOUT_MS.default(),
        }
    }
}
