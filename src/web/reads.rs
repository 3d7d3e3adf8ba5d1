//! Public reads that can't crowd out buyers' writes: a budget of pooled
//! connections for reads, of which one client network gets a few at a
//! time ([`ReadPermit`]), and hot seat maps served from a per-instance
//! copy kept until the live feed says the event changed ([`SeatMapCache`]).
//!
//! The copy is display data only. Whether a seat can be held is always
//! decided by the claim's own statement in PostgreSQL; a map read from the
//! copy is at most the cache's age (plus the feed's delay) behind, and a
//! page's live stream carries changes from its own cursor.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, watch};

use crate::db::live::SeatChanges;
use crate::db::replica::ReadFrom;

use crate::domain::ids::EventId;
use crate::error::{AppError, AppResult};
use crate::web::precompressed::{Effort, Prepared};

/// How many pooled connections public reads may hold at once: most of the
/// pool, never all of it, so a flood of reads leaves room for holds and
/// purchases.
pub fn read_budget(pool_size: usize) -> usize {
    (pool_size - pool_size / 4).max(1)
}

/// The read budget: in all, and per client network (reads one network
/// may have in flight at once; more wait their turn, so one address
/// can't take the whole budget).
pub struct ReadGate {
    all: Arc<Semaphore>,
    per_network: usize,
    networks: Mutex<HashMap<IpAddr, Arc<Semaphore>>>,
}

impl ReadGate {
    /// `per_network` 0: no per-network share (behind a proxy that hides
    /// clients' addresses).
    pub fn new(pool_size: usize, per_network: usize) -> ReadGate {
        ReadGate::with_budget(read_budget(pool_size), per_network)
    }

    /// A gate for other scarce work (making files: CPU, not connections):
    /// `all` at once, `per_network` of them one network's.
    pub fn with_budget(all: usize, per_network: usize) -> ReadGate {
        ReadGate {
            all: Arc::new(Semaphore::new(all.max(1))),
            per_network: if per_network == 0 {
                Semaphore::MAX_PERMITS
            } else {
                per_network
            },
            networks: Mutex::default(),
        }
    }

    fn network(&self, network: IpAddr) -> Arc<Semaphore> {
        let mut networks = self.networks.lock().unwrap_or_else(|p| p.into_inner());
        // Forget networks with nothing in flight, now and then.
        if networks.len() > 4096 {
            networks.retain(|_, s| s.available_permits() < self.per_network);
        }
        networks
            .entry(network)
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_network)))
            .clone()
    }
}

/// A place in the read budget, held for the request: first the client
/// network's, then one of all. Waits up to the pool's own wait, then
/// answers 503 like an exhausted pool.
pub struct ReadPermit {
    _network: OwnedSemaphorePermit,
    _all: OwnedSemaphorePermit,
}

impl ReadGate {
    /// A place for a read from `network`, waiting at most `wait`.
    pub async fn enter(&self, network: IpAddr, wait: Duration) -> AppResult<ReadPermit> {
        let network = self.network(network);
        let all = self.all.clone();
        let permits = async {
            let network = network.acquire_owned().await?;
            Ok::<_, tokio::sync::AcquireError>((network, all.acquire_owned().await?))
        };
        match tokio::time::timeout(wait, permits).await {
            Ok(Ok((network, all))) => Ok(ReadPermit {
                _network: network,
                _all: all,
            }),
            _ => Err(AppError::Unavailable(anyhow::anyhow!(
                "every connection public reads may use is busy"
            ))),
        }
    }
}

/// One event's map as made at `made`, when the event's changes stood at
/// `generation`; or the transient failure making it met (shared with the
/// requests that waited for it, for the same age, so a database hiccup is
/// one failed read, not one after another).
struct Kept {
    made: Instant,
    generation: u64,
    /// Read from the primary, so current as of `generation`; a map read
    /// from a replica may miss a change the feed already named, and is
    /// kept for `ttl` only.
    from_primary: bool,
    /// Past this, the map is stale whatever the feed says (see [`MadeMap`]).
    unchanged_until: Option<Instant>,
    map: Option<Arc<Prepared>>,
}

/// A map as made for the cache: its JSON, where it was read, and until
/// when it may be kept while the feed names no change. A hold lapses
/// without a write (expiry is lazy), so the feed never names it: a map
/// with held seats may be kept only until the first of them lapses.
pub struct MadeMap {
    pub json: Bytes,
    pub from: ReadFrom,
    /// None: no lapse ahead (only the cache's longest keep applies).
    pub unchanged_until: Option<Instant>,
}

/// Until when a map of these seats stays true while no seat is written:
/// the first held seat's lapse (expiry is lazy, so a lapse writes
/// nothing the feed could name); None when no seat is held.
pub fn first_lapse(seats: &[crate::domain::seat::Seat]) -> Option<Instant> {
    let now = time::OffsetDateTime::now_utc();
    seats
        .iter()
        .filter_map(|seat| seat.held_until)
        .min()
        .map(|at| {
            let ahead: Duration = (at - now).try_into().unwrap_or_default();
            Instant::now() + ahead
        })
}

type Slot = Arc<tokio::sync::RwLock<Option<Kept>>>;

/// What the live feed has said changed, drained when a map is asked for.
/// One sequence numbers every change heard, so an event's generation only
/// ever grows.
struct Changes {
    feed: Option<broadcast::Receiver<Arc<SeatChanges>>>,
    resyncs: Option<watch::Receiver<u64>>,
    sequence: u64,
    /// The sequence when the feed last named the event.
    per_event: HashMap<EventId, u64>,
    /// The sequence when the feed may last have missed something (this
    /// instance fell behind it, or it started over): every map older is
    /// stale.
    everything: u64,
}

impl Changes {
    fn everything_changed(&mut self) {
        self.sequence += 1;
        self.everything = self.sequence;
        self.per_event.clear();
    }
}

/// Each event's seat map as viewers with nothing of their own on it see
/// it, per instance, with its compressed forms. A map is kept while the
/// live feed (which this instance polls anyway) names no change to the
/// event's seats or GA areas, up to `max_age` (an event's own details,
/// its sales closing say, don't come through the feed); once changed, it
/// is made anew at most once per `ttl`. Concurrent requests for a stale
/// map wait for the one that makes it, rather than each reading the
/// database. So an unchanged map costs the database nothing, and a map
/// is at most `ttl` plus the feed's delay behind the seats.
pub struct SeatMapCache<K = EventId> {
    ttl: Duration,
    max_age: Duration,
    slots: Mutex<HashMap<K, Slot>>,
    changes: Mutex<Changes>,
}

/// What a kept map is a map of: one event, or a season's nights. A map is
/// stale once the feed names any of its events.
pub trait MapKey: Eq + std::hash::Hash + Clone {
    fn events(&self) -> &[EventId];
}

impl MapKey for EventId {
    fn events(&self) -> &[EventId] {
        std::slice::from_ref(self)
    }
}

/// A season's map for a choice of its nights (as nobody's).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SeasonMapKey {
    pub season_id: crate::domain::ids::SeasonId,
    pub nights: Vec<EventId>,
}

impl MapKey for SeasonMapKey {
    fn events(&self) -> &[EventId] {
        &self.nights
    }
}

/// Events kept before stale ones are dropped.
const KEPT_EVENTS: usize = 256;

/// How long a map no change was heard of is kept, as a multiple of `ttl`.
const UNCHANGED_TTLS: u32 = 20;

impl<K: MapKey> SeatMapCache<K> {
    /// `ttl` zero: nothing is kept; every read is made fresh. Without a
    /// feed, a map is kept for `ttl` whatever changes.
    pub fn new(ttl: Duration, feed: Option<&crate::db::live::LiveFeed>) -> SeatMapCache<K> {
        SeatMapCache::following(
            ttl,
            feed.map(|feed| feed.subscribe()),
            feed.map(|feed| feed.resyncs()),
        )
    }

    fn following(
        ttl: Duration,
        feed: Option<broadcast::Receiver<Arc<SeatChanges>>>,
        resyncs: Option<watch::Receiver<u64>>,
    ) -> SeatMapCache<K> {
        SeatMapCache {
            ttl,
            max_age: ttl * UNCHANGED_TTLS,
            slots: Mutex::default(),
            changes: Mutex::new(Changes {
                feed,
                resyncs,
                sequence: 0,
                per_event: HashMap::new(),
                everything: 0,
            }),
        }
    }

    /// Where the events' changes stand: a number that grows whenever the
    /// feed names one of them (or may have missed it). None: no feed to ask.
    fn generation(&self, events: &[EventId]) -> Option<u64> {
        let mut changes = self.changes.lock().unwrap_or_else(|p| p.into_inner());
        let changes = &mut *changes;
        if let Some(resyncs) = &mut changes.resyncs
            && resyncs.has_changed().unwrap_or(true)
        {
            resyncs.mark_unchanged();
            changes.everything_changed();
        }
        loop {
            let heard = match changes.feed.as_mut()?.try_recv() {
                Ok(change) => change,
                Err(broadcast::error::TryRecvError::Lagged(_)) => {
                    changes.everything_changed();
                    continue;
                }
                Err(broadcast::error::TryRecvError::Empty) => break,
                Err(broadcast::error::TryRecvError::Closed) => {
                    changes.feed = None;
                    return None;
                }
            };
            changes.sequence += 1;
            let sequence = changes.sequence;
            changes.per_event.insert(heard.event_id, sequence);
        }
        if changes.per_event.len() > 4 * KEPT_EVENTS {
            changes.everything_changed();
        }
        let named = events
            .iter()
            .filter_map(|event_id| changes.per_event.get(event_id).copied())
            .max()
            .unwrap_or(0);
        Some(changes.everything.max(named))
    }

    /// Drops the event's map on this instance, after a change to the event
    /// itself that must show at once (other instances hear of it through
    /// the feed, see `db::publishing`).
    pub fn forget(&self, key: K) {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        slots.remove(&key);
    }

    /// The event's map, made by `make` (its JSON, and where it was read)
    /// when the one kept is stale (see [`SeatMapCache`]).
    pub async fn get_or_make<F, Fut>(&self, key: K, make: F) -> AppResult<Arc<Prepared>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = AppResult<MadeMap>>,
    {
        if self.ttl.is_zero() {
            return prepare(make().await?.json).await;
        }
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            if slots.len() > KEPT_EVENTS {
                // Keep what is in use or young; a slot for an event that
                // doesn't exist never holds a map, and goes.
                slots.retain(|_, slot| {
                    Arc::strong_count(slot) > 1
                        || slot.try_read().is_ok_and(|kept| {
                            kept.as_ref().is_some_and(|k| k.made.elapsed() < self.ttl)
                        })
                });
            }
            slots.entry(key.clone()).or_default().clone()
        };
        if let Some(kept) = self.fresh(&key, &*slot.read().await) {
            return kept;
        }
        let mut kept = slot.write().await;
        // Made by the request this one waited for.
        if let Some(kept) = self.fresh(&key, &kept) {
            return kept;
        }
        // Before the read: a change the feed names while it runs makes
        // this map stale at once (it may or may not show the change).
        let generation = self.generation(key.events()).unwrap_or(0);
        match make().await {
            Ok(made) => {
                let prepared = prepare(made.json).await?;
                *kept = Some(Kept {
                    made: Instant::now(),
                    generation,
                    from_primary: made.from == ReadFrom::Primary,
                    unchanged_until: made.unchanged_until,
                    map: Some(prepared.clone()),
                });
                Ok(prepared)
            }
            Err(err) if err.is_transient() => {
                *kept = Some(Kept {
                    made: Instant::now(),
                    generation,
                    from_primary: false,
                    unchanged_until: None,
                    map: None,
                });
                Err(err)
            }
            Err(err) => Err(err),
        }
    }

    /// What is kept, if it may still be served: the map, or the failure
    /// that making it met (a failure only for `ttl`).
    fn fresh(&self, key: &K, kept: &Option<Kept>) -> Option<AppResult<Arc<Prepared>>> {
        let kept = kept.as_ref()?;
        let age = kept.made.elapsed();
        let young = age < self.ttl;
        let unchanged = || {
            kept.map.is_some()
                && kept.from_primary
                && age < self.max_age
                && kept
                    .unchanged_until
                    .is_none_or(|until| Instant::now() < until)
                && self.generation(key.events()) == Some(kept.generation)
        };
        if !young && !unchanged() {
            return None;
        }
        Some(kept.map.clone().ok_or_else(|| {
            AppError::Unavailable(anyhow::anyhow!("making this seat map failed a moment ago"))
        }))
    }
}

async fn prepare(json: Bytes) -> AppResult<Arc<Prepared>> {
    tokio::task::spawn_blocking(move || {
        use sha2::Digest;
        let tag = data_encoding::HEXLOWER.encode(&sha2::Sha256::digest(&json)[..12]);
        Arc::new(Prepared::new(json, "application/json", &tag, Effort::Fast))
    })
    .await
    .map_err(|err| AppError::Internal(err.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_never_get_the_whole_pool() {
        assert_eq!(read_budget(16), 12);
        assert_eq!(read_budget(4), 3);
        assert_eq!(read_budget(1), 1);
    }

    #[tokio::test]
    async fn one_network_gets_its_share_and_reads_never_get_the_whole_pool() {
        let gate = ReadGate::new(4, 2);
        let wait = Duration::from_millis(50);
        let (a, b, c): (IpAddr, IpAddr, IpAddr) = (
            "10.0.0.1".parse().unwrap(),
            "10.0.0.2".parse().unwrap(),
            "10.0.0.3".parse().unwrap(),
        );
        let first = gate.enter(a, wait).await.expect("a's first");
        let _second = gate.enter(a, wait).await.expect("a's second");
        assert!(gate.enter(a, wait).await.is_err(), "a's share is 2");
        let _other = gate.enter(b, wait).await.expect("b's first");
        assert!(
            gate.enter(c, wait).await.is_err(),
            "three of a four-connection pool are all reads get"
        );
        drop(first);
        assert!(gate.enter(c, wait).await.is_ok(), "a place came back");
    }

    #[tokio::test]
    async fn a_fresh_map_is_made_once_and_a_stale_one_again() {
        let cache = SeatMapCache::new(Duration::from_secs(2), None);
        let made = std::sync::atomic::AtomicUsize::new(0);
        let make = || async {
            made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(MadeMap {
                json: Bytes::from_static(b"{\"seats\":[]}"),
                from: ReadFrom::Primary,
                unchanged_until: None,
            })
        };
        let together =
            futures_util::future::join_all((0..20).map(|_| cache.get_or_make(EventId(1), make)))
                .await;
        assert!(together.iter().all(Result::is_ok));
        assert_eq!(
            made.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "twenty asked, one made"
        );
        tokio::time::sleep(Duration::from_millis(2100)).await;
        cache.get_or_make(EventId(1), make).await.unwrap();
        assert_eq!(
            made.load(std::sync::atomic::Ordering::SeqCst),
            2,
            "made again once stale"
        );
        cache.get_or_make(EventId(2), make).await.unwrap();
        assert_eq!(
            made.load(std::sync::atomic::Ordering::SeqCst),
            3,
            "each event its own"
        );
    }

    /// A cache following a feed the test sends changes into.
    fn following_a_feed(
        ttl: Duration,
        capacity: usize,
    ) -> (SeatMapCache, broadcast::Sender<Arc<SeatChanges>>) {
        let (sender, receiver) = broadcast::channel(capacity);
        (SeatMapCache::following(ttl, Some(receiver), None), sender)
    }

    fn change(sender: &broadcast::Sender<Arc<SeatChanges>>, event: i64) {
        sender
            .send(Arc::new(SeatChanges {
                event_id: EventId(event),
                through: crate::db::snapshot::Snapshot::parse("10:10:").expect("a snapshot"),
                seats: Vec::new(),
                ga_areas: None,
            }))
            .expect("the cache is listening");
    }

    /// Counts the maps it makes, read from `from`.
    struct Maker {
        made: std::sync::atomic::AtomicUsize,
        from: ReadFrom,
        unchanged_until: Option<Instant>,
    }

    impl Maker {
        fn new(from: ReadFrom) -> Maker {
            Maker {
                made: std::sync::atomic::AtomicUsize::new(0),
                from,
                unchanged_until: None,
            }
        }

        async fn get(&self, cache: &SeatMapCache, event: i64) -> usize {
            cache
                .get_or_make(EventId(event), || async {
                    self.made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    Ok(MadeMap {
                        json: Bytes::from_static(b"{}"),
                        from: self.from,
                        unchanged_until: self.unchanged_until,
                    })
                })
                .await
                .expect("a map");
            self.made.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    #[tokio::test]
    async fn an_unchanged_map_outlives_its_age_and_a_change_named_for_it_ends_it() {
        let (cache, feed) = following_a_feed(Duration::from_millis(50), 16);
        let maker = Maker::new(ReadFrom::Primary);
        assert_eq!(maker.get(&cache, 1).await, 1);
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert_eq!(
            maker.get(&cache, 1).await,
            1,
            "unchanged: kept past its age"
        );
        change(&feed, 2);
        assert_eq!(maker.get(&cache, 1).await, 1, "another event's change");
        change(&feed, 1);
        assert_eq!(
            maker.get(&cache, 1).await,
            2,
            "its own change, past its age"
        );
        change(&feed, 1);
        assert_eq!(
            maker.get(&cache, 1).await,
            2,
            "changed again, but younger than its age"
        );
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(maker.get(&cache, 1).await, 3);
    }

    #[tokio::test]
    async fn a_cache_fallen_behind_the_feed_makes_every_map_anew() {
        let (cache, feed) = following_a_feed(Duration::from_millis(30), 2);
        let maker = Maker::new(ReadFrom::Primary);
        assert_eq!(maker.get(&cache, 1).await, 1);
        assert_eq!(maker.get(&cache, 7).await, 2);
        // More than the channel holds: the cache can't know what it missed.
        for event in [2, 3, 4, 5] {
            change(&feed, event);
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(maker.get(&cache, 1).await, 3);
        // Once caught up, an event the feed names no more is kept again,
        // and the counting never comes back to an old value.
        change(&feed, 7);
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(maker.get(&cache, 1).await, 3, "kept: unchanged since made");
        assert_eq!(maker.get(&cache, 7).await, 4, "named since it was made");
    }

    #[tokio::test]
    async fn a_map_read_from_a_replica_is_kept_only_its_age() {
        let (cache, _feed) = following_a_feed(Duration::from_millis(30), 16);
        let maker = Maker::new(ReadFrom::Replica);
        assert_eq!(maker.get(&cache, 1).await, 1);
        assert_eq!(maker.get(&cache, 1).await, 1, "within its age");
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(
            maker.get(&cache, 1).await,
            2,
            "the replica may have missed a change the feed named"
        );
    }

    #[tokio::test]
    async fn a_map_with_held_seats_is_kept_unchanged_only_until_the_first_lapses() {
        let (cache, _feed) = following_a_feed(Duration::from_millis(20), 16);
        let maker = Maker {
            unchanged_until: Some(Instant::now() + Duration::from_millis(100)),
            ..Maker::new(ReadFrom::Primary)
        };
        assert_eq!(maker.get(&cache, 1).await, 1);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(maker.get(&cache, 1).await, 1, "past its age, no lapse yet");
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert_eq!(maker.get(&cache, 1).await, 2, "a hold on it has lapsed");
    }

    #[tokio::test]
    async fn an_unchanged_map_is_made_anew_past_its_longest_keep() {
        // Kept at most 20 ages: 200 ms.
        let (cache, _feed) = following_a_feed(Duration::from_millis(10), 16);
        let maker = Maker::new(ReadFrom::Primary);
        assert_eq!(maker.get(&cache, 1).await, 1);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(maker.get(&cache, 1).await, 1);
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(maker.get(&cache, 1).await, 2);
    }
}
