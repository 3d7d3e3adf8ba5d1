//! The private cluster from the system's binaries: it starts, keeps its
//! data across a restart, lets a second process attach to it without
//! stopping it, and stops. (That it never outlives a killed owner is
//! tested with the app itself: tests/it/lifecycle.rs.)

use pg_embedded::{Durability, PgCluster};

/// A folder the server user can reach (it is `postgres` when we are root).
fn scratch() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pg-embedded-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::process::Command::new("chmod")
        .args(["755"])
        .arg(&dir)
        .status()
        .unwrap();
    dir.join("pgdata")
}

async fn query_one_i64(cluster: &PgCluster, sql: &str) -> i64 {
    let (client, connection) = cluster
        .connect_config("postgres")
        .connect(tokio_postgres::NoTls)
        .await
        .expect("connecting to the cluster");
    tokio::spawn(connection);
    client.query_one(sql, &[]).await.unwrap().get(0)
}

#[tokio::test]
async fn a_cluster_keeps_its_data_across_a_restart_and_a_second_owner_only_attaches() {
    let data = scratch();
    let start = |data: std::path::PathBuf| {
        tokio::task::spawn_blocking(move || PgCluster::start(&data, Durability::Throwaway))
    };
    let first = start(data.clone())
        .await
        .unwrap()
        .unwrap_or_else(|err| panic!("the cluster needs the PostgreSQL server binaries: {err:#}"));
    assert!(!first.attached());
    let (client, connection) = first
        .connect_config("postgres")
        .connect(tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
        .await
        .unwrap();
    drop(client);
    // A second owner (the `seatmap staff` command beside a running app)
    // attaches, and stopping it leaves the server running.
    let second = start(data.clone()).await.unwrap().unwrap();
    assert!(second.attached());
    second.stop().unwrap();
    assert_eq!(query_one_i64(&first, "SELECT n::bigint FROM kept").await, 7);
    first.stop().unwrap();
    // Started again on the same folder: the data is there.
    let again = start(data.clone()).await.unwrap().unwrap();
    assert!(!again.attached());
    assert_eq!(query_one_i64(&again, "SELECT n::bigint FROM kept").await, 7);
    again.stop().unwrap();
    let _ = std::fs::remove_dir_all(data.parent().unwrap());
}
