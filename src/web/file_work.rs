//! Ticket files being made: as many at once as the instance has cores,
//! one at a time per client network (the rest wait their turn, then a
//! 503), and order PDFs kept a while as made (see `buyer::ticket_files`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::{AppError, AppResult};

/// Files being made at once: one per core of the instance, one of them a
/// client network's (its others wait their turn, up to [`FILE_WAIT`]).
pub struct FileWork {
    gate: crate::web::reads::ReadGate,
    /// Order PDFs as made, by a digest of everything printed on them.
    kept: Mutex<HashMap<[u8; 32], KeptFile>>,
    /// Files this instance has made (what the keeping saved shows here).
    made: std::sync::atomic::AtomicU64,
}

/// A file as made, and when.
type KeptFile = (Instant, Arc<Vec<u8>>);

/// How long a file waits for its turn before a 503 says "busy".
const FILE_WAIT: Duration = Duration::from_secs(10);
/// How long an order's PDF is kept, and how many bytes of them at most.
const KEPT_FOR: Duration = Duration::from_secs(600);
const KEPT_BYTES: usize = 64 * 1024 * 1024;

impl Default for FileWork {
    fn default() -> FileWork {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        FileWork {
            gate: crate::web::reads::ReadGate::with_budget(cores, 1),
            kept: Mutex::default(),
            made: Default::default(),
        }
    }
}

impl FileWork {
    /// How many files this instance has made.
    pub fn made(&self) -> u64 {
        self.made.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Makes a file on a blocking thread in its turn: the instance's, and
    /// the client network's.
    pub async fn make(
        &self,
        network: IpAddr,
        make: impl FnOnce() -> anyhow::Result<Vec<u8>> + Send + 'static,
    ) -> AppResult<Vec<u8>> {
        let _turn = self.gate.enter(network, FILE_WAIT).await.map_err(|_| {
            AppError::Unavailable(anyhow::anyhow!(
                "every place for making ticket files is busy"
            ))
        })?;
        self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tokio::task::spawn_blocking(make)
            .await
            .map_err(|err| AppError::Internal(err.into()))?
            .map_err(AppError::Internal)
    }

    pub fn kept(&self, key: &[u8; 32]) -> Option<Arc<Vec<u8>>> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.get(key)
            .filter(|(made, _)| made.elapsed() < KEPT_FOR)
            .map(|(_, body)| body.clone())
    }

    pub fn keep(&self, key: [u8; 32], body: Arc<Vec<u8>>) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.retain(|_, (made, _)| made.elapsed() < KEPT_FOR);
        // The oldest go first while the rest would be past the bytes kept.
        while !kept.is_empty()
            && kept.values().map(|(_, b)| b.len()).sum::<usize>() + body.len() > KEPT_BYTES
        {
            let oldest = kept
                .iter()
                .min_by_key(|(_, (made, _))| *made)
                .map(|(key, _)| *key);
            if let Some(oldest) = oldest {
                kept.remove(&oldest);
            }
        }
        if body.len() <= KEPT_BYTES {
            kept.insert(key, (Instant::now(), body));
        }
    }
}
