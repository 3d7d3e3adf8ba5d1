//! A PostgreSQL snapshot as a cursor: what the live feed and each page
//! have seen, so the changes committed since can be asked for.

use super::GenericClient;
use crate::error::AppResult;

/// A PostgreSQL snapshot ("xmin:xmax:xip,..."), the live feed's cursor
/// and a page's: the changes committed after it was taken are the ones
/// still to send. Only ever built from the database's own text or from
/// text that parses as one, so it can be cast back without an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot(String);

impl Snapshot {
    /// A snapshot from a page (its URL or Last-Event-ID), if it is one.
    pub fn parse(text: &str) -> Option<Snapshot> {
        if text.len() > 4000 {
            return None;
        }
        let mut parts = text.trim().split(':');
        let xmin: u64 = parts.next()?.parse().ok()?;
        let xmax: u64 = parts.next()?.parse().ok()?;
        let running = parts.next()?;
        if parts.next().is_some() || xmin == 0 || xmin > xmax {
            return None;
        }
        let mut xips: Vec<u64> = Vec::new();
        if !running.is_empty() {
            for xip in running.split(',') {
                let xip: u64 = xip.parse().ok()?;
                if xip < xmin || xip >= xmax || xips.last().is_some_and(|last| *last >= xip) {
                    return None;
                }
                xips.push(xip);
            }
        }
        let xips: Vec<String> = xips.iter().map(u64::to_string).collect();
        Some(Snapshot(format!("{xmin}:{xmax}:{}", xips.join(","))))
    }

    /// A snapshot as the database wrote it (`pg_current_snapshot()::text`).
    pub(super) fn from_database(text: String) -> Snapshot {
        Snapshot(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The database's snapshot now: a cursor before any change not yet committed.
pub async fn snapshot_now(client: &impl GenericClient) -> AppResult<Snapshot> {
    let statement = client
        .prepare_cached("SELECT pg_current_snapshot()::text")
        .await?;
    Ok(Snapshot(client.query_one(&statement, &[]).await?.get(0)))
}

/// [`snapshot_now`], and the primary's WAL position then (in bytes): a
/// replica that has replayed that far sees everything the snapshot does.
/// The position is where the last record was inserted, not how far WAL is
/// written: with asynchronous commit a transaction is committed (and in
/// the snapshot) before its record is written, let alone sent.
pub async fn snapshot_now_with_wal_position(
    client: &impl GenericClient,
) -> AppResult<(Snapshot, i64)> {
    let statement = client
        .prepare_cached(
            "SELECT pg_current_snapshot()::text,
                    (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint",
        )
        .await?;
    let row = client.query_one(&statement, &[]).await?;
    Ok((Snapshot(row.get(0)), row.get(1)))
}

#[cfg(test)]
mod tests {
    use super::Snapshot;

    #[test]
    fn only_well_formed_snapshots_are_taken_from_pages() {
        for good in ["745:745:", "745:760:745,751", " 10:12:11 "] {
            assert!(Snapshot::parse(good).is_some(), "{good}");
        }
        assert_eq!(Snapshot::parse(" 10:12:11 ").unwrap().as_str(), "10:12:11");
        for bad in [
            "",
            "745",
            "745:744:",
            "0:1:",
            "745:760:761",
            "745:760:751,745",
            "745:760:751,751",
            "745:760:x",
            "745:760:751:1",
            "-1:2:",
            "1.5:2:",
        ] {
            assert_eq!(Snapshot::parse(bad), None, "{bad}");
        }
    }
}
