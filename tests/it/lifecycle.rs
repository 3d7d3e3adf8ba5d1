//! The app's life around its requests: stopping on SIGTERM, and living
//! through a restart of its database.

use std::time::Duration;

use pg_embedded::{Durability, PgCluster};
use reqwest::StatusCode;
use seatmap::config::{Config, DatabaseSource, Secret};
use tokio::io::AsyncBufReadExt;

use crate::support::{
    Api, PATIENCE, create_event_on, read_stream_until, scratch_dir, serve_instance, spawn_app,
};

async fn open_live(client: &Api, event_id: i64) -> reqwest::Response {
    let stream = client
        .http
        .get(format!("{}/events/{event_id}/live", client.base))
        .timeout(Duration::from_secs(120))
        .send()
        .await
        .expect("opening the live stream");
    assert_eq!(stream.status(), StatusCode::OK);
    stream
}

/// The production binary, sent SIGTERM with a pick waiting on a row lock
/// and a live page open: the stream ends at once, no new connection is
/// taken, the pick still gets its answer (and its hold), and the process
/// exits cleanly.
#[tokio::test]
async fn on_sigterm_streams_end_requests_in_flight_are_answered_and_the_process_exits() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let seat = event.seat_ids[1];
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_seatmap"))
        .env("DATABASE_URL", app.db.conninfo())
        .env("SEATMAP_ADDR", "127.0.0.1:0")
        .env("SEATMAP_SHUTDOWN_GRACE_SECS", "60")
        // The pick below waits on a lock the test holds until it has seen
        // the stream end and the listener close: however slow the machine,
        // the pick's wait must outlast that, so it is the test's, not 2 s.
        .env("SEATMAP_DB_LOCK_TIMEOUT_MS", "60000")
        .env("SEATMAP_DB_STATEMENT_TIMEOUT_MS", "60000")
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("starting the seatmap binary");
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let banner = tokio::time::timeout(PATIENCE, stdout.next_line())
        .await
        .expect("the app never said where it runs")
        .unwrap()
        .expect("the app exited before serving");
    let base = banner
        .strip_prefix("seatmap is running at ")
        .unwrap_or_else(|| panic!("unexpected banner {banner:?}"))
        .trim_end_matches('/')
        .to_string();
    let addr = base.trim_start_matches("http://").to_string();

    let viewer = Api::new(&base);
    let mut stream = open_live(&viewer, event.id).await;
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute("SELECT 1 FROM seats WHERE id = $1 FOR UPDATE", &[&seat])
        .await
        .unwrap();
    let buyer = Api::new(&base);
    let pick = tokio::spawn(async move { buyer.hold(event.id, &[seat]).await });
    app.lock_waiter(crate::support::PICK_STATEMENT).await;

    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id().unwrap() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let ended = tokio::time::timeout(PATIENCE, async {
        loop {
            match stream.chunk().await {
                Ok(Some(_)) => continue,
                Ok(None) => return Ok(()),
                Err(err) => return Err(err),
            }
        }
    })
    .await
    .expect("the live stream was still open after SIGTERM");
    assert!(
        ended.is_ok(),
        "the stream broke instead of ending: {ended:?}"
    );
    assert!(
        !pick.is_finished(),
        "the pick is still waiting on the lock: streams end before requests drain"
    );
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while tokio::net::TcpStream::connect(&addr).await.is_ok() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "still accepting connections after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!pick.is_finished(), "the lock is still held");

    lock.rollback().await.unwrap();
    let (status, hold) = pick.await.unwrap();
    assert_eq!(
        status,
        StatusCode::CREATED,
        "the request in flight was answered: {hold}"
    );
    let exited = tokio::time::timeout(PATIENCE, child.wait_with_output())
        .await
        .expect("the process outlived its grace period")
        .unwrap();
    assert!(
        exited.status.success(),
        "exit {:?}: {}",
        exited.status,
        String::from_utf8_lossy(&exited.stderr)
    );
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'HELD'")
            .await,
        1,
        "the drained pick's hold was kept"
    );
}

const APP_ROLE: &str = "seatmap_app";

async fn superuser(cluster: &PgCluster, dbname: &str) -> tokio_postgres::Client {
    let (client, connection) = cluster
        .connect_config(dbname)
        .connect(tokio_postgres::NoTls)
        .await
        .expect("connecting to the test's own cluster as its superuser");
    tokio::spawn(connection);
    client
}

async fn start_cluster(dir: &std::path::Path) -> PgCluster {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || PgCluster::start(&dir, Durability::Throwaway))
        .await
        .unwrap()
        .expect("starting the test's own cluster")
}

/// The app's database stops and starts again under it. While it is down,
/// requests get a quick 503. A change committed after the restart, while
/// the app could not yet connect (its role may not log in until then),
/// reaches a page that stayed open; the first request after gets a fresh
/// connection, not a dead one; and the feed polls again: a later change is
/// broadcast for its event.
#[tokio::test]
async fn after_a_database_restart_the_pool_and_the_feed_reconnect_and_open_pages_catch_up() {
    let dir = scratch_dir(&format!(
        "restart-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    ));
    let cluster = start_cluster(&dir).await;
    let admin = superuser(&cluster, "postgres").await;
    for setup in [
        format!("CREATE ROLE {APP_ROLE} LOGIN"),
        format!("CREATE DATABASE seatmap OWNER {APP_ROLE}"),
    ] {
        admin.batch_execute(&setup).await.unwrap();
    }
    let conninfo = format!(
        "host={} port=5432 user={APP_ROLE} dbname=seatmap",
        dir.display()
    );
    let config = Config::for_tests(DatabaseSource::Url(Secret::new(conninfo)));
    let (base, state) = serve_instance(&config).await;
    let pool = seatmap::db::database::Database::connect(&config)
        .await
        .expect("the test's pool")
        .pool;
    let event = create_event_on(&pool, 1, 6).await;
    let s = event.seat_ids.clone();
    let seats_path = format!("/api/events/{}/seats", event.id);

    let viewer = Api::new(&base);
    let mut stream = open_live(&viewer, event.id).await;
    let mut seen = String::new();
    let buyer = Api::new(&base);
    assert_eq!(buyer.hold(event.id, &[s[0]]).await.0, StatusCode::CREATED);
    read_stream_until(&mut stream, &mut seen, &format!("id=\"seat-{}\"", s[0])).await;
    // Several idle connections in the pool, all about to die.
    let warm = futures_util::future::join_all((0..4).map(|_| viewer.get(&seats_path))).await;
    assert!(warm.iter().all(|(status, _)| *status == StatusCode::OK));

    admin
        .batch_execute(&format!("ALTER ROLE {APP_ROLE} NOLOGIN"))
        .await
        .unwrap();
    drop(admin);
    let cluster = tokio::task::spawn_blocking(move || {
        cluster.stop().expect("stopping the cluster");
        cluster
    })
    .await
    .unwrap();
    let (status, body) = viewer.get(&seats_path).await;
    assert_eq!(
        status,
        StatusCode::SERVICE_UNAVAILABLE,
        "database down: {body}"
    );
    assert_eq!(body["error"], "unavailable");
    drop(cluster);

    let cluster = start_cluster(&dir).await;
    let admin = superuser(&cluster, "seatmap").await;
    admin
        .execute(
            "UPDATE seats SET status = 'BLOCKED' WHERE id = $1",
            &[&s[3]],
        )
        .await
        .unwrap();
    let app_sessions = admin
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = $1",
            &[&APP_ROLE],
        )
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(
        app_sessions, 0,
        "the change must be committed with no app connection"
    );
    admin
        .batch_execute(&format!("ALTER ROLE {APP_ROLE} LOGIN"))
        .await
        .unwrap();

    let (status, body) = viewer.get(&seats_path).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the first request after the restart: {body}"
    );
    read_stream_until(
        &mut stream,
        &mut seen,
        &format!("id=\"seat-{}\" class=\"seat seat--blocked", s[3]),
    )
    .await;

    // The feed polls again: a later change is broadcast for its event.
    let mut feed = state.live.subscribe();
    assert_eq!(buyer.hold(event.id, &[s[5]]).await.0, StatusCode::CREATED);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let change = tokio::time::timeout_at(deadline, feed.recv())
            .await
            .expect("the hold was never broadcast")
            .expect("the feed's broadcast");
        let broadcast = change.event_id == seatmap::domain::ids::EventId(event.id)
            && change.seats.iter().any(|seat| seat.id.0 == s[5]);
        if broadcast {
            break;
        }
    }
    read_stream_until(&mut stream, &mut seen, &format!("id=\"seat-{}\"", s[5])).await;

    drop(stream);
    pool.close();
    tokio::task::spawn_blocking(move || cluster.stop())
        .await
        .unwrap()
        .expect("stopping the cluster");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waits, up to [`PATIENCE`], until `sql` counts `expected`.
async fn until_count(app: &crate::support::TestApp, sql: &str, expected: i64) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let now = app.count(sql).await;
        if now == expected {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{sql} still counts {now}, not {expected}, after {PATIENCE:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The session sweeper runs wherever the app runs, the tests' instances
/// included: an expired session row goes, a live one stays.
#[tokio::test]
async fn the_session_sweeper_runs_in_every_instance_and_deletes_only_expired_sessions() {
    let app = crate::support::spawn_app_with(|config| {
        config.session_sweep_every = Duration::from_millis(50);
    })
    .await;
    app.sql()
        .await
        .batch_execute(
            "INSERT INTO tower_sessions (id, data, expiry_date) VALUES
                 ('expired', '{}', now() - interval '1 minute'),
                 ('live', '{}', now() + interval '1 hour')",
        )
        .await
        .unwrap();
    until_count(
        &app,
        "SELECT count(*) FROM tower_sessions WHERE id = 'expired'",
        0,
    )
    .await;
    assert_eq!(
        app.count("SELECT count(*) FROM tower_sessions WHERE id = 'live'")
            .await,
        1
    );
}

/// `Application::build` starts the background work, and the end of
/// `run_until` stops it: afterwards the live feed has let go of its
/// connection and the workers are gone.
#[tokio::test]
async fn building_the_app_starts_its_background_work_and_shutdown_stops_it() {
    let app = spawn_app().await;
    let database = seatmap::db::database::Database::connect(&app.config)
        .await
        .unwrap();
    let instance = seatmap::startup::Application::build(app.config.clone(), &database)
        .await
        .unwrap();
    // No SMTP in the tests' configuration: no mail worker.
    assert_eq!(
        instance.background_running(),
        [
            "session sweeper",
            "webhook sender",
            "waitlist offers",
            "queue worker"
        ]
    );
    // This instance's live feed and the first instance's: two.
    let live_connections = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'seatmap-live' AND datname = current_database()";
    until_count(&app, live_connections, 2).await;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(instance.run_until(async {
        let _ = stopped.await;
    }));
    stop.send(()).unwrap();
    tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("shutdown finished")
        .unwrap();
    until_count(&app, live_connections, 1).await;
}

/// The embedded cluster never outlives its app (docs/design.md): the app,
/// run as a process with no DATABASE_URL, is killed with SIGKILL (no
/// chance to stop anything), and its PostgreSQL goes too, by the
/// parent-death signal it was started with.
#[tokio::test]
async fn the_embedded_cluster_goes_when_its_app_is_killed() {
    let dir = crate::support::scratch_dir(&format!(
        "embedded-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    ));
    // Made 0755 (the process's umask), so the cluster's user, postgres
    // when we are root, can reach it; the cluster's own folder inside is
    // made by the app. (Nothing here may change the modes of the other
    // tests' clusters beside it: PostgreSQL refuses a data folder others
    // can read.)
    std::fs::create_dir_all(&dir).unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_seatmap"));
    command
        .env_remove("DATABASE_URL")
        .env("SEATMAP_DATA_DIR", &dir)
        .env("SEATMAP_ADDR", "127.0.0.1:0")
        .env("RUST_LOG", "warn");
    let mut app = crate::support::RunningBinary::from_command(command).await;
    let pid_file = dir.join("pgdata").join("postmaster.pid");
    let postmaster: i32 = std::fs::read_to_string(&pid_file)
        .expect("the cluster's postmaster.pid")
        .lines()
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(std::path::Path::new(&format!("/proc/{postmaster}")).exists());
    app.child.start_kill().unwrap();
    app.child.wait().await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::path::Path::new(&format!("/proc/{postmaster}")).exists() {
        // A zombie the init process has not reaped yet is gone too.
        let state = std::fs::read_to_string(format!("/proc/{postmaster}/stat")).unwrap_or_default();
        if state.split_whitespace().nth(2) == Some("Z") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "PostgreSQL ({postmaster}) outlived its killed app"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}
