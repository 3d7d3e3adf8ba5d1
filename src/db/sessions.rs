//! The tower-sessions store, in PostgreSQL over the app's pool, so every
//! instance sees every session. (The published Postgres stores target older
//! tower-sessions releases or sqlx; see docs/design.md.)

use std::fmt;

use async_trait::async_trait;
use time::OffsetDateTime;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, SessionStore};

use super::Pool;

#[derive(Clone)]
pub struct PgSessionStore {
    pool: Pool,
}

impl PgSessionStore {
    pub fn new(pool: Pool) -> PgSessionStore {
        PgSessionStore { pool }
    }

    /// Deletes expired sessions; returns how many.
    pub async fn delete_expired(&self) -> session_store::Result<u64> {
        let client = self.pool.get().await.map_err(backend)?;
        client
            .execute("DELETE FROM tower_sessions WHERE expiry_date < now()", &[])
            .await
            .map_err(backend)
    }
}

impl fmt::Debug for PgSessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgSessionStore").finish_non_exhaustive()
    }
}

fn backend(err: impl fmt::Display) -> session_store::Error {
    session_store::Error::Backend(err.to_string())
}

fn encode(record: &Record) -> session_store::Result<serde_json::Value> {
    serde_json::to_value(&record.data).map_err(|e| session_store::Error::Encode(e.to_string()))
}

#[async_trait]
impl SessionStore for PgSessionStore {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        let client = self.pool.get().await.map_err(backend)?;
        let statement = client
            .prepare_cached(
                "INSERT INTO tower_sessions (id, data, expiry_date) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO NOTHING",
            )
            .await
            .map_err(backend)?;
        let data = encode(record)?;
        // A collision of 128-bit random ids is next to impossible; if one
        // happens, draw again rather than overwrite someone's session.
        loop {
            let inserted = client
                .execute(
                    &statement,
                    &[&record.id.to_string(), &data, &record.expiry_date],
                )
                .await
                .map_err(backend)?;
            if inserted == 1 {
                return Ok(());
            }
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        let client = self.pool.get().await.map_err(backend)?;
        let statement = client
            .prepare_cached(
                "INSERT INTO tower_sessions (id, data, expiry_date) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, expiry_date = EXCLUDED.expiry_date",
            )
            .await
            .map_err(backend)?;
        client
            .execute(
                &statement,
                &[
                    &record.id.to_string(),
                    &encode(record)?,
                    &record.expiry_date,
                ],
            )
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let client = self.pool.get().await.map_err(backend)?;
        let statement = client
            .prepare_cached(
                "SELECT data, expiry_date FROM tower_sessions WHERE id = $1 AND expiry_date > now()",
            )
            .await
            .map_err(backend)?;
        let Some(row) = client
            .query_opt(&statement, &[&id.to_string()])
            .await
            .map_err(backend)?
        else {
            return Ok(None);
        };
        let data: serde_json::Value = row.get("data");
        let expiry_date: OffsetDateTime = row.get("expiry_date");
        Ok(Some(Record {
            id: *id,
            data: serde_json::from_value(data)
                .map_err(|e| session_store::Error::Decode(e.to_string()))?,
            expiry_date,
        }))
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        let client = self.pool.get().await.map_err(backend)?;
        let statement = client
            .prepare_cached("DELETE FROM tower_sessions WHERE id = $1")
            .await
            .map_err(backend)?;
        client
            .execute(&statement, &[&id.to_string()])
            .await
            .map_err(backend)?;
        Ok(())
    }
}
