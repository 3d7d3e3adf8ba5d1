//! Test harness: a real PostgreSQL, a fresh database per test, and the real
//! app served on an ephemeral port.
//!
//! The server is `TEST_DATABASE_URL` when set (it needs CREATEDB rights);
//! otherwise one throwaway cluster per test process, started from the system
//! binaries (as the `postgres` user when we are root). Each test gets a
//! database cloned from a migrated template and dropped when the test ends;
//! databases left by crashed runs are swept when the template is made.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pg_embedded::{Durability, PgCluster};
use reqwest::StatusCode;
use seatmap::app::AppState;
use seatmap::config::{Config, DatabaseSource, Secret};
use seatmap::db::database::Database;
use seatmap::db::{self, Pool};
use seatmap::domain::layout::{EventSpec, RowSpec, SectionSpec, TierSpec, row_label};
use seatmap::startup::Application;
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::OnceCell;
use tokio_postgres::NoTls;

const TEST_DB_PREFIX: &str = "seatmap_test_";
const TEMPLATE_PREFIX: &str = "seatmap_tpl_";
/// Databases of ours older than this are leftovers of crashed runs.
const STALE_AFTER_SECS: u64 = 2 * 3600;

/// Lives once per test process, in a static: the size of its variants
/// doesn't matter, so the external one's config isn't boxed.
#[allow(clippy::large_enum_variant)]
enum Server {
    External(tokio_postgres::Config),
    Cluster(PgCluster),
}

impl Server {
    fn config_for(&self, dbname: &str) -> tokio_postgres::Config {
        match self {
            Server::External(base) => {
                let mut config = base.clone();
                config.dbname(dbname);
                config
            }
            Server::Cluster(cluster) => cluster.connect_config(dbname),
        }
    }

    fn admin_config(&self) -> tokio_postgres::Config {
        match self {
            Server::External(base) => base.clone(),
            Server::Cluster(cluster) => cluster.connect_config("postgres"),
        }
    }
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.trim().is_empty() => Server::External(
            url.parse()
                .expect("TEST_DATABASE_URL is not a valid PostgreSQL connection string"),
        ),
        _ => {
            sweep_stale_cluster_dirs();
            let cluster = PgCluster::start(&scratch_dir("pgdata"), Durability::Throwaway)
                .unwrap_or_else(|err| {
                    panic!(
                        "the integration tests need PostgreSQL and could not start one: {err:#}\n\
                         Set TEST_DATABASE_URL to a server where this user may CREATE DATABASE, \
                         or install the server binaries (Debian: apt-get install postgresql)."
                    )
                });
            Server::Cluster(cluster)
        }
    })
}

/// A folder of this test process's own, removed by the next run once the
/// process has exited (kept short: a cluster's socket lives in it).
pub fn scratch_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir()
        .join(format!("seatmap-it-{}", std::process::id()))
        .join(name)
}

/// Throwaway clusters of test processes that have exited.
fn sweep_stale_cluster_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("seatmap-it-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs()
}

async fn connect(config: &tokio_postgres::Config) -> tokio_postgres::Client {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .unwrap_or_else(|err| panic!("connecting to the test PostgreSQL: {err}"));
    tokio::spawn(connection);
    client
}

async fn template() -> &'static str {
    static TEMPLATE: OnceCell<String> = OnceCell::const_new();
    TEMPLATE
        .get_or_init(|| async {
            let admin = connect(&server().admin_config()).await;
            sweep_stale_databases(&admin).await;
            let name = format!("{TEMPLATE_PREFIX}{}_{}", unix_secs(), std::process::id());
            admin
                .batch_execute(&format!("CREATE DATABASE {}", db::quote_ident(&name)))
                .await
                .expect("creating the template database");
            let (mut client, connection) = server()
                .config_for(&name)
                .connect(NoTls)
                .await
                .expect("connecting to the template database");
            let connection = tokio::spawn(connection);
            db::migrate_client(&mut client)
                .await
                .expect("migrating the template database");
            drop(client);
            let _ = connection.await;
            name
        })
        .await
}

async fn sweep_stale_databases(admin: &tokio_postgres::Client) {
    let rows = admin
        .query(
            "SELECT datname FROM pg_database WHERE datname LIKE 'seatmap\\_test\\_%' OR datname LIKE 'seatmap\\_tpl\\_%'",
            &[],
        )
        .await
        .expect("listing databases");
    let now = unix_secs();
    for row in rows {
        let name: String = row.get(0);
        let created = name
            .trim_start_matches(TEST_DB_PREFIX)
            .trim_start_matches(TEMPLATE_PREFIX)
            .split('_')
            .next()
            .and_then(|secs| secs.parse::<u64>().ok());
        if created.is_some_and(|secs| now.saturating_sub(secs) > STALE_AFTER_SECS) {
            let _ = admin
                .batch_execute(&format!(
                    "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                    db::quote_ident(&name)
                ))
                .await;
        }
    }
}

/// A database of its own for one test, dropped when the test ends.
pub struct TestDb {
    pub name: String,
}

impl TestDb {
    /// A database of its own whose character classes (`LC_CTYPE`) are
    /// `ctype`'s, migrated afresh (a template copy keeps the template's
    /// locale): for a rule a database's locale could bend, such as what
    /// `lower()` folds. The suite's own cluster is initdb'd `--locale=C`.
    pub async fn create_in_ctype(ctype: &str) -> TestDb {
        let name = format!(
            "{TEST_DB_PREFIX}{}_{}",
            unix_secs(),
            uuid::Uuid::new_v4().simple()
        );
        let admin = connect(&server().admin_config()).await;
        admin
            .batch_execute(&format!(
                "CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE '{}'",
                db::quote_ident(&name),
                ctype.replace('\'', "''")
            ))
            .await
            .unwrap_or_else(|err| panic!("creating a database in the {ctype} locale: {err}"));
        let db = TestDb { name };
        let (mut client, connection) = server()
            .config_for(&db.name)
            .connect(NoTls)
            .await
            .expect("connecting to the new database");
        let connection = tokio::spawn(connection);
        db::migrate_client(&mut client)
            .await
            .expect("migrating the new database");
        drop(client);
        let _ = connection.await;
        db
    }

    pub async fn create() -> TestDb {
        let template = template().await;
        let name = format!(
            "{TEST_DB_PREFIX}{}_{}",
            unix_secs(),
            uuid::Uuid::new_v4().simple()
        );
        let admin = connect(&server().admin_config()).await;
        let sql = format!(
            "CREATE DATABASE {} TEMPLATE {}",
            db::quote_ident(&name),
            db::quote_ident(template)
        );
        // The template's migration connection may still be closing, or
        // another test may be copying it this instant: both are brief.
        let mut attempts = 0;
        loop {
            match admin.batch_execute(&sql).await {
                Ok(()) => break,
                Err(err)
                    if attempts < 100
                        && err.code() == Some(&tokio_postgres::error::SqlState::OBJECT_IN_USE) =>
                {
                    attempts += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(err) => panic!("creating test database {name}: {err}"),
            }
        }
        TestDb { name }
    }

    pub fn pg_config(&self) -> tokio_postgres::Config {
        server().config_for(&self.name)
    }

    /// A libpq key/value connection string, the form DATABASE_URL also takes.
    pub fn conninfo(&self) -> String {
        let config = self.pg_config();
        let quote = |v: &str| format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"));
        let mut parts = Vec::new();
        if let Some(host) = config.get_hosts().first() {
            let host = match host {
                tokio_postgres::config::Host::Tcp(h) => h.clone(),
                tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
            };
            parts.push(format!("host={}", quote(&host)));
        }
        if let Some(port) = config.get_ports().first() {
            parts.push(format!("port={port}"));
        }
        if let Some(user) = config.get_user() {
            parts.push(format!("user={}", quote(user)));
        }
        if let Some(password) = config.get_password() {
            parts.push(format!(
                "password={}",
                quote(&String::from_utf8_lossy(password))
            ));
        }
        parts.push(format!("dbname={}", quote(&self.name)));
        parts.join(" ")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop runs inside the test's runtime, which can't be blocked on;
        // a short-lived thread with its own runtime does the DROP.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime for dropping the test database");
            runtime.block_on(async {
                let admin = connect(&server().admin_config()).await;
                admin
                    .batch_execute(&format!(
                        "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                        db::quote_ident(&name)
                    ))
                    .await
            })
        })
        .join();
        if let Ok(Err(err)) = dropped {
            eprintln!("warning: could not drop test database {}: {err}", self.name);
        }
    }
}

/// The app, served on 127.0.0.1:0 against its own database.
/// Joins statement parts a lock waiter may be in any of.
pub const ANY_OF: &str = "||";

/// What a buyer's pick waits in: its one statement (`claim_seats_within_share`,
/// migration V34, wrapping V29's `claim_seats_for_buyer`), which
/// pg_stat_activity shows for every lock the functions wait on inside.
pub const PICK_STATEMENT: &str = "claim_seats_within_share";

pub struct TestApp {
    pub base: String,
    pub pool: Pool,
    pub config: Config,
    /// The first instance's state: its live feed, its configuration.
    pub state: AppState,
    /// Held so the database lives (and is dropped) with the app.
    pub db: TestDb,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(adjust: impl FnOnce(&mut Config)) -> TestApp {
    spawn_app_on(TestDb::create().await, adjust).await
}

/// The app on a database made for the test (see [`TestDb`]).
pub async fn spawn_app_on(db: TestDb, adjust: impl FnOnce(&mut Config)) -> TestApp {
    let mut config = Config::for_tests(DatabaseSource::Url(Secret::new(db.conninfo())));
    config.db.pool_size = 20;
    adjust(&mut config);
    let (base, state) = serve_instance(&config).await;
    let database = Database::connect(&config)
        .await
        .expect("connecting the test app's own pool");
    TestApp {
        base,
        pool: database.pool,
        config,
        state,
        db,
    }
}

/// Serves another instance of the app (own pool, same database) and returns its base URL.
pub async fn serve(config: &Config) -> String {
    serve_instance(config).await.0
}

/// Serves an instance through production's wiring (`Application`), and
/// returns its base URL and state (to look at its live feed).
pub async fn serve_instance(config: &Config) -> (String, AppState) {
    let database = Database::connect(config)
        .await
        .expect("connecting the app to the test database");
    let app = Application::build(config.clone(), &database)
        .await
        .expect("building the app");
    let base = format!("http://{}", app.addr);
    let state = app.state.clone();
    tokio::spawn(app.run_until(std::future::pending()));
    (base, state)
}

/// An event built for a test: rows of seats, all in one tier unless
/// `tiers` says otherwise.
pub struct EventFixture {
    pub id: i64,
    /// In layout order: section by section, row by row, left to right.
    pub seat_ids: Vec<i64>,
}

/// [`TestApp::create_event`] on any database (a test's own cluster, say).
pub async fn create_event_on(pool: &Pool, rows: usize, per_row: u32) -> EventFixture {
    create_event_with_on(
        pool,
        vec![SectionSpec {
            name: "Stalls".into(),
            rows: (0..rows)
                .map(|i| RowSpec {
                    label: row_label(i),
                    seats: per_row,
                    tier: "std".into(),
                    ..Default::default()
                })
                .collect(),
            curve: None,
            side_blocks: None,
        }],
    )
    .await
}

async fn create_event_with_on(pool: &Pool, sections: Vec<SectionSpec>) -> EventFixture {
    let spec = EventSpec {
        slug: None,
        name: "Test Night".into(),
        venue: "Test Hall".into(),
        starts_at: OffsetDateTime::now_utc() + time::Duration::days(7),
        currency: "EUR".into(),
        time_zone: "UTC".into(),
        tiers: vec![
            TierSpec {
                code: "std".into(),
                name: "Standard".into(),
                price_cents: 4500,
            },
            TierSpec {
                code: "vip".into(),
                name: "VIP".into(),
                price_cents: 9900,
            },
        ],
        sections,
    };
    let id = db::demo::create_event(pool, &spec)
        .await
        .expect("creating the test event");
    fixture(pool, id).await
}

/// The event with its seats in layout order.
async fn fixture(pool: &Pool, id: seatmap::domain::ids::EventId) -> EventFixture {
    let client = pool.get().await.expect("pool");
    let seat_ids = db::seats::for_event(&client, id, None)
        .await
        .expect("listing seats")
        .iter()
        .map(|s| s.id.0)
        .collect();
    EventFixture { id: id.0, seat_ids }
}

impl TestApp {
    pub async fn second_instance(&self) -> String {
        serve(&self.config).await
    }

    /// One section "Stalls" with `rows` rows of `per_row` seats at €45.
    pub async fn create_event(&self, rows: usize, per_row: u32) -> EventFixture {
        create_event_on(&self.pool, rows, per_row).await
    }

    pub async fn create_event_with(&self, sections: Vec<SectionSpec>) -> EventFixture {
        create_event_with_on(&self.pool, sections).await
    }

    /// An event with one row of `seats` seats ("std", €45) and general-
    /// admission areas (name, capacity) at €20 ("floor" tier). Returns the
    /// event, its seats and its area ids in layout order.
    pub async fn create_ga_event(
        &self,
        seats: u32,
        areas: &[(&str, u32)],
    ) -> (EventFixture, Vec<i64>) {
        let tiers = vec![
            TierSpec {
                code: "std".into(),
                name: "Standard".into(),
                price_cents: 4500,
            },
            TierSpec {
                code: "floor".into(),
                name: "Floor".into(),
                price_cents: 2000,
            },
        ];
        let grid = EventSpec {
            slug: None,
            name: "GA Night".into(),
            venue: "Test Hall".into(),
            starts_at: OffsetDateTime::now_utc() + time::Duration::days(7),
            currency: "EUR".into(),
            time_zone: "UTC".into(),
            tiers: tiers.clone(),
            sections: vec![SectionSpec {
                name: "Stalls".into(),
                rows: vec![RowSpec {
                    label: "A".into(),
                    seats,
                    tier: "std".into(),
                    ..Default::default()
                }],
                curve: None,
                side_blocks: None,
            }],
        };
        let mut layout = grid.layout().expect("a valid test layout");
        layout.ga_areas = areas
            .iter()
            .map(|(name, capacity)| seatmap::domain::venue::GaArea {
                name: name.to_string(),
                tier: "floor".into(),
                capacity: *capacity,
                outline: None,
            })
            .collect();
        let event = db::events::NewEvent {
            slug: None,
            name: grid.name.clone(),
            venue_id: None,
            venue_version: None,
            starts_at: grid.starts_at,
            on_sale_at: None,
            currency: "EUR".into(),
            tiers,
            layout,
            published: true,
        };
        let id = db::events::create(&self.pool, &event)
            .await
            .expect("creating the GA test event");
        let area_ids = db::ga::areas(&self.sql().await, id, None)
            .await
            .expect("listing areas")
            .iter()
            .map(|a| a.id.0)
            .collect();
        (fixture(&self.pool, id).await, area_ids)
    }

    /// A new browser-like client: its own cookie jar, so its own session.
    pub fn buyer(&self) -> Api {
        Api::new(&self.base)
    }

    pub async fn sql(&self) -> deadpool_postgres::Object {
        self.pool.get().await.expect("pool")
    }

    /// The hold (as the API spells its id) of every seat held in the
    /// event, lapsed or not: what the database says, to check clients against.
    pub async fn holders(&self, event_id: i64) -> std::collections::HashMap<i64, String> {
        self.sql()
            .await
            .query(
                "SELECT id, hold_id::text FROM seats WHERE event_id = $1 AND status = 'HELD'",
                &[&event_id],
            )
            .await
            .expect("reading holders")
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect()
    }

    /// (held, sold) on a GA area's counters.
    pub async fn ga_counters(&self, area: i64) -> (i32, i32) {
        let row = self
            .sql()
            .await
            .query_one("SELECT held, sold FROM ga_areas WHERE id = $1", &[&area])
            .await
            .expect("reading the area's counters");
        (row.get(0), row.get(1))
    }

    /// Fails the test if the database breaks any invariant `seatmap-bench`
    /// checks (see `db::invariants`).
    pub async fn no_breaches(&self) {
        let breaches = seatmap::db::invariants::check(&self.sql().await, 1000)
            .await
            .expect("checking invariants");
        assert!(breaches.is_empty(), "{breaches:#?}");
    }

    /// The single bigint a query returns, e.g. `SELECT count(*) FROM orders`.
    pub async fn count(&self, sql: &str) -> i64 {
        self.sql()
            .await
            .query_one(sql, &[])
            .await
            .unwrap_or_else(|err| panic!("{sql}: {err}"))
            .get(0)
    }
}

/// How long a test waits for something the app does in the background
/// before it fails: generous, since every test runs in parallel.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// Reads an open live stream into `seen` until `needle` has arrived,
/// failing after [`PATIENCE`] with what did.
pub async fn read_stream_until(stream: &mut reqwest::Response, seen: &mut String, needle: &str) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !seen.contains(needle) {
        let chunk = tokio::time::timeout_at(deadline, stream.chunk())
            .await
            .unwrap_or_else(|_| panic!("no {needle:?} within {PATIENCE:?}; got:\n{}", short(seen)))
            .expect("reading the stream")
            .expect("the stream ended");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
}

/// A backend of the app caught waiting on a lock.
pub struct LockWaiter {
    /// When its transaction began: what `now()` is inside it.
    pub xact_start: OffsetDateTime,
}

impl TestApp {
    /// Every leased outbox row's lease run out, as its lease's length would
    /// (mail or webhook).
    pub async fn lapse_leases(&self) {
        self.sql()
            .await
            .execute(
                "UPDATE outbox SET leased_until = now() - interval '1 second' WHERE lease IS NOT NULL",
                &[],
            )
            .await
            .expect("lapsing the outbox's leases");
    }

    /// A connection of the test's own, outside every pool: to hold locks
    /// the app is then made to wait on, or to read what other backends do.
    pub async fn own_connection(&self) -> tokio_postgres::Client {
        connect(&self.db.pg_config()).await
    }

    /// Waits (polling, up to [`PATIENCE`]) until a backend of this database
    /// is waiting on a lock in a statement containing `statement_part` (or
    /// any of its parts joined by [`ANY_OF`]).
    pub async fn lock_waiter(&self, statement_part: &str) -> LockWaiter {
        self.lock_waiters(statement_part, 1).await
    }

    /// Waits until at least `at_least` backends wait on a lock in a
    /// statement containing `statement_part`; returns the earliest.
    pub async fn lock_waiters(&self, statement_part: &str, at_least: i64) -> LockWaiter {
        self.lock_waiters_within(statement_part, at_least, PATIENCE)
            .await
            .unwrap_or_else(|waiting| {
                panic!(
                    "{waiting} (not {at_least}) backends waited on a lock in {statement_part:?} \
                     within {PATIENCE:?}"
                )
            })
    }

    /// [`TestApp::lock_waiters`], giving up after `patience` with how many waited.
    pub async fn lock_waiters_within(
        &self,
        statement_part: &str,
        at_least: i64,
        patience: Duration,
    ) -> Result<LockWaiter, i64> {
        let watcher = self.own_connection().await;
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            let row = watcher
                .query_one(
                    "SELECT count(*), min(xact_start) FROM pg_stat_activity
                      WHERE datname = current_database() AND pid <> pg_backend_pid()
                        AND wait_event_type = 'Lock'
                        AND EXISTS (SELECT 1 FROM unnest($1::text[]) part
                                     WHERE strpos(query, part) > 0)",
                    &[&statement_part.split(ANY_OF).collect::<Vec<_>>()],
                )
                .await
                .expect("reading pg_stat_activity");
            let waiting: i64 = row.get(0);
            if waiting >= at_least {
                return Ok(LockWaiter {
                    xact_start: row.get(1),
                });
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(waiting);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Moves a hold's expiry to `at` everywhere it is kept (the hold, its
    /// seats, its GA tickets): the test's clock, instead of waiting.
    pub async fn expire_hold_at(&self, hold_id: &Value, at: OffsetDateTime) {
        let hold_id: uuid::Uuid = id_segment(hold_id).parse().expect("a hold id");
        let client = self.own_connection().await;
        client
            .execute(
                "UPDATE holds SET created_at = least(created_at, $2::timestamptz - interval '1 hour'),
                                  expires_at = $2
                  WHERE id = $1",
                &[&hold_id, &at],
            )
            .await
            .expect("moving the hold's expiry");
        self.expire_held_places_at(&client, hold_id, at).await;
    }

    /// Moves the expiry of the hold's seats and GA tickets only, leaving the
    /// hold row alone (it may be locked by the transaction under test).
    pub async fn expire_held_places_at(
        &self,
        client: &tokio_postgres::Client,
        hold_id: uuid::Uuid,
        at: OffsetDateTime,
    ) {
        client
            .execute(
                "UPDATE seats SET held_until = $2 WHERE hold_id = $1 AND status = 'HELD'",
                &[&hold_id, &at],
            )
            .await
            .expect("moving the seats' expiry");
        client
            .execute(
                "UPDATE ga_tickets SET held_until = $2 WHERE hold_id = $1 AND order_id IS NULL",
                &[&hold_id, &at],
            )
            .await
            .expect("moving the tickets' expiry");
    }

    /// Lapses the hold now, as if its time had run out a minute ago.
    pub async fn lapse_hold(&self, hold_id: &Value) {
        let a_minute_ago: OffsetDateTime = self
            .sql()
            .await
            .query_one("SELECT now() - interval '1 minute'", &[])
            .await
            .expect("reading the database clock")
            .get(0);
        self.expire_hold_at(hold_id, a_minute_ago).await;
    }

    /// Waits until the database's clock has passed `at`. Deadlines are the
    /// database's (`now()`), and its wall clock need not keep pace with
    /// the test's monotonic one (seen here: 5.2 s of tokio's sleep were
    /// 3.2 s of PostgreSQL's): a test waits on the clock that judges.
    pub async fn wait_for_database_time(&self, at: OffsetDateTime) {
        let client = self.own_connection().await;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            let past: bool = client
                .query_one("SELECT clock_timestamp() > $1", &[&at])
                .await
                .expect("reading the database clock")
                .get(0);
            if past {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the database's clock never passed {at}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Lapses every open hold of the event now (see [`TestApp::lapse_hold`]).
    pub async fn lapse_every_hold(&self, event_id: i64) {
        let open: Vec<String> = self
            .sql()
            .await
            .query(
                "SELECT id::text FROM holds WHERE event_id = $1 AND state = 'OPEN'",
                &[&event_id],
            )
            .await
            .expect("listing open holds")
            .iter()
            .map(|row| row.get(0))
            .collect();
        assert!(
            !open.is_empty(),
            "event {event_id} has no open hold to lapse"
        );
        for hold in open {
            self.lapse_hold(&Value::String(hold)).await;
        }
    }

    /// PostgreSQL's count of deadlocks in this database, settled. Backends
    /// report statistics when idle at most every 10 s, but always on exit:
    /// so every other backend of the database is ended first, and waited
    /// for. The app's pooled connections go with them; call this last.
    pub async fn settled_deadlocks(&self) -> i64 {
        let client = self.own_connection().await;
        let ended: Vec<i32> = client
            .query(
                // OFFSET 0 keeps the filter ahead of the call: we must
                // not end our own backend.
                "SELECT pid FROM (SELECT pid FROM pg_stat_activity
                                   WHERE datname = current_database() AND pid <> pg_backend_pid()
                                  OFFSET 0) others
                  WHERE pg_terminate_backend(pid)",
                &[],
            )
            .await
            .expect("ending the database's other backends")
            .iter()
            .map(|row| row.get(0))
            .collect();
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let left: i64 = client
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)",
                    &[&ended],
                )
                .await
                .expect("reading pg_stat_activity")
                .get(0);
            if left == 0 {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{left} backends still running {PATIENCE:?} after being ended"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        client
            .query_one(
                "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
                &[],
            )
            .await
            .expect("reading pg_stat_database")
            .get(0)
    }
}

/// A clock for the rate limits that stands still: their windows (per
/// minute, per 15 minutes) can't end while a test counts against them.
pub fn frozen_limits_clock() -> seatmap::config::LimitClock {
    seatmap::config::LimitClock::Frozen(OffsetDateTime::now_utc())
}

/// How long a test client keeps an idle pooled connection: well under the
/// server's keep-alive idle limit (`SEATMAP_HTTP_HEADER_TIMEOUT_SECS`, 10 s),
/// so a client never sends a request on a connection the server is about
/// to close (hyper's default keeps them 90 s, and a request sent as the
/// server closes comes back as `IncompleteMessage`). docs/api.md tells
/// integrators the same.
pub const CLIENT_IDLE: Duration = Duration::from_secs(4);

/// A test's HTTP client builder: every test client idles out before the
/// server does (see [`CLIENT_IDLE`]).
pub fn client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder().pool_idle_timeout(CLIENT_IDLE)
}

/// A plain test client (see [`client_builder`]).
pub fn http_client() -> reqwest::Client {
    client_builder().build().expect("http client")
}

/// A JSON API client with a cookie jar (a clone shares the jar: the same
/// browser).
#[derive(Clone)]
pub struct Api {
    pub http: reqwest::Client,
    pub base: String,
    jar: std::sync::Arc<reqwest::cookie::Jar>,
}

impl Api {
    pub fn new(base: &str) -> Api {
        let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
        Api {
            http: client_builder()
                .cookie_provider(jar.clone())
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(30))
                .build()
                .expect("http client"),
            base: base.to_string(),
            jar,
        }
    }

    /// A client whose connections come from another loopback address
    /// (127.0.0.2, …), so per-address limits count it apart.
    pub fn from_address(base: &str, local: &str) -> Api {
        let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
        Api {
            http: client_builder()
                .cookie_provider(jar.clone())
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(30))
                .local_address(local.parse::<std::net::IpAddr>().expect("an address"))
                .build()
                .expect("http client"),
            base: base.to_string(),
            jar,
        }
    }

    pub fn on(&self, base: &str) -> Api {
        Api {
            http: self.http.clone(),
            base: base.to_string(),
            jar: self.jar.clone(),
        }
    }

    /// The session cookie's value (the session id), if the jar has one.
    pub fn session_cookie(&self) -> Option<String> {
        self.cookie("seatmap_session")
    }

    /// The value of the cookie `name` in this client's jar.
    pub fn cookie(&self, name: &str) -> Option<String> {
        use reqwest::cookie::CookieStore;
        let url: reqwest::Url = self.base.parse().expect("base URL");
        let cookies = self.jar.cookies(&url)?;
        let prefix = format!("{name}=");
        cookies
            .to_str()
            .ok()?
            .split("; ")
            .find_map(|c| c.strip_prefix(prefix.as_str()))
            .map(str::to_string)
    }

    async fn answer(response: reqwest::Response) -> (StatusCode, Value) {
        let status = response.status();
        let text = response.text().await.expect("response body");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text)
                .unwrap_or_else(|_| panic!("{status}: body is not JSON: {text}"))
        };
        (status, body)
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("GET");
        Self::answer(response).await
    }

    /// A GET's whole response (a file, its headers).
    pub async fn raw_get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("GET")
    }

    /// The body of a GET, as text (a page, metrics).
    pub async fn get_text(&self, path: &str) -> String {
        self.http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("GET")
            .text()
            .await
            .expect("response body")
    }

    pub async fn post_raw(&self, path: &str, body: &str) -> (StatusCode, Value) {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("POST");
        Self::answer(response).await
    }

    /// A `POST` of `body` with an `Idempotency-Key`.
    pub async fn post_keyed(&self, path: &str, key: &str, body: &Value) -> KeyedAnswer {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .header("idempotency-key", key)
            .json(body)
            .send()
            .await
            .expect("POST: the app answers");
        let status = response.status();
        let replayed = response.headers().contains_key("idempotent-replayed");
        let retry_after = response.headers().contains_key("retry-after");
        KeyedAnswer {
            status,
            body: response.json().await.unwrap_or(Value::Null),
            replayed,
            retry_after,
        }
    }

    pub async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.post_raw(path, &body.to_string()).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let response = self
            .http
            .patch(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .expect("PATCH");
        Self::answer(response).await
    }

    pub async fn delete(&self, path: &str) -> (StatusCode, Value) {
        let response = self
            .http
            .delete(format!("{}{path}", self.base))
            .send()
            .await
            .expect("DELETE");
        Self::answer(response).await
    }

    pub async fn hold(&self, event_id: i64, seat_ids: &[i64]) -> (StatusCode, Value) {
        self.post(
            &format!("/api/events/{event_id}/holds"),
            json!({ "seat_ids": seat_ids }),
        )
        .await
    }

    /// Asks for `count` general-admission tickets in `area`.
    pub async fn hold_ga(&self, event_id: i64, area: i64, count: i64) -> (StatusCode, Value) {
        self.post(
            &format!("/api/events/{event_id}/holds"),
            json!({ "ga": { "area": area, "count": count } }),
        )
        .await
    }

    pub async fn seats(&self, event_id: i64) -> Value {
        let (status, body) = self.get(&format!("/api/events/{event_id}/seats")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }

    pub async fn purchase(&self, hold_id: &Value, name: &str, email: &str) -> (StatusCode, Value) {
        self.post(
            &format!("/api/holds/{}/purchase", id_segment(hold_id)),
            json!({ "name": name, "email": email }),
        )
        .await
    }
}

/// An opaque id from the API, as a path segment.
pub fn id_segment(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The seat ids (as i64) a JSON array lists.
pub fn ids(value: &Value) -> Vec<i64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected an array of ids, got {value}"))
        .iter()
        .map(|v| v.as_i64().expect("numeric seat id"))
        .collect()
}

/// The status the API reports for each seat, by id.
pub fn statuses(seats_body: &Value) -> std::collections::HashMap<i64, String> {
    seats_body["seats"]
        .as_array()
        .expect("seats array")
        .iter()
        .map(|s| {
            (
                s["id"].as_i64().expect("id"),
                s["status"].as_str().expect("status").to_string(),
            )
        })
        .collect()
}

/// A value cut short for an assertion message.
pub fn short(value: &str) -> String {
    let start: String = value.chars().take(60).collect();
    format!(
        "{start:?}{}",
        if value.chars().count() > 60 {
            "…"
        } else {
            ""
        }
    )
}

/// The production binary serving the test's database on its own port: a
/// process of its own, so what it costs (its memory's high-water mark)
/// can be read from outside.
pub struct RunningBinary {
    pub child: tokio::process::Child,
    pub base: String,
}

impl RunningBinary {
    pub async fn start(app: &TestApp, env: &[(&str, &str)]) -> RunningBinary {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_seatmap"));
        command
            .env("DATABASE_URL", app.db.conninfo())
            .env("SEATMAP_ADDR", "127.0.0.1:0")
            .env("RUST_LOG", "warn");
        for (name, value) in env {
            command.env(name, value);
        }
        RunningBinary::from_command(command).await
    }

    /// Runs `command` (the binary, its environment set) and waits for the
    /// line that says where it serves.
    pub async fn from_command(mut command: tokio::process::Command) -> RunningBinary {
        use tokio::io::AsyncBufReadExt;
        let mut child = command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("starting the seatmap binary");
        let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let banner = tokio::time::timeout(Duration::from_secs(120), stdout.next_line())
            .await
            .expect("the app never said where it runs")
            .unwrap()
            .expect("the app exited before serving");
        let base = banner
            .strip_prefix("seatmap is running at ")
            .unwrap_or_else(|| panic!("unexpected banner {banner:?}"))
            .trim_end_matches('/')
            .to_string();
        // The rest of its output is drained, so a full pipe never blocks it.
        tokio::spawn(async move { while let Ok(Some(_)) = stdout.next_line().await {} });
        RunningBinary { child, base }
    }

    /// The process's peak resident memory so far (`VmHWM`), in kB.
    pub fn peak_memory_kb(&self) -> u64 {
        let pid = self.child.id().expect("the binary is running");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/<pid>/status")
    }
}

/// A time as the API writes one.
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .expect("an RFC 3339 time")
}

/// An app whose statements wait on locks as long as a forced race needs:
/// the test holds a lock until every party waits on it, however loaded
/// the machine, so the app's own 2 s lock timeout must not end the wait.
pub async fn spawn_app_for_forced_races() -> TestApp {
    spawn_app_with(|config| {
        config.db.lock_timeout = Duration::from_secs(60);
        config.db.statement_timeout = Duration::from_secs(90);
    })
    .await
}

/// The superuser on a test's own cluster, over its socket in `dir`.
pub async fn superuser_at(dir: &std::path::Path, dbname: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(
        &format!(
            "host={} port=5432 user={} dbname={dbname}",
            dir.display(),
            pg_embedded::SUPERUSER
        ),
        NoTls,
    )
    .await
    .expect("connecting to the test's own cluster");
    tokio::spawn(connection);
    client
}

/// What a `POST` with an `Idempotency-Key` was answered.
pub struct KeyedAnswer {
    pub status: StatusCode,
    pub body: Value,
    /// The kept answer given again (`Idempotent-Replayed`).
    pub replayed: bool,
    pub retry_after: bool,
}
