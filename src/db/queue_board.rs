//! Each instance's copy of the waiting rooms' figures, read from
//! PostgreSQL once a second (`db::queue::feed`) by the queue worker, so a
//! waiting buyer's poll is answered from memory: no statement per poll.

use std::collections::{HashMap, HashSet};
use std::sync::RwLock;

use uuid::Uuid;

use crate::db::queue::{FeedRead, QueueState};
use crate::domain::ids::EventId;
use crate::domain::queue::{Place, place};

/// One event's queue as this instance last read it.
struct Room {
    state: QueueState,
    /// Every join's order key, sorted: a join's place is how many are below it.
    keys: Vec<i64>,
    seen: HashSet<Uuid>,
}

#[derive(Default)]
pub struct QueueBoard {
    rooms: RwLock<HashMap<EventId, Room>>,
    cursor: RwLock<i64>,
    /// Whether a read has filled the board yet: until then the gate asks
    /// PostgreSQL, so an instance that just started lets nobody past a queue.
    ready: std::sync::atomic::AtomicBool,
}

/// What a waiting buyer is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Waiting(Place),
    /// Its turn has come (or this instance has not read its join yet and
    /// the queue has admitted past it): the claim's own check decides.
    Turn,
}

impl QueueBoard {
    /// The event's queue, if it has one.
    pub fn queue_of(&self, event_id: EventId) -> Option<QueueState> {
        let rooms = self.rooms.read().expect("queue board lock");
        rooms.get(&event_id).map(|room| room.state.clone())
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(std::sync::atomic::Ordering::Acquire)
    }

    pub fn cursor(&self) -> i64 {
        *self.cursor.read().expect("queue board lock")
    }

    /// A queue put or changed here: known at once, not a second later.
    pub fn set(&self, state: QueueState) {
        let mut rooms = self.rooms.write().expect("queue board lock");
        Self::set_in(&mut rooms, state);
    }

    pub fn remove(&self, event_id: EventId) {
        self.rooms
            .write()
            .expect("queue board lock")
            .remove(&event_id);
    }

    /// A join made here: placed at once, so its first poll finds it.
    pub fn joined(&self, event_id: EventId, join_id: Uuid, order_key: i64) {
        let mut rooms = self.rooms.write().expect("queue board lock");
        if let Some(room) = rooms.get_mut(&event_id) {
            room.add(join_id, order_key);
        }
    }

    /// The second's read: queues gone are dropped, the rest updated, new joins placed.
    pub fn apply(&self, read: FeedRead) {
        let mut rooms = self.rooms.write().expect("queue board lock");
        let live: HashSet<EventId> = read.queues.iter().map(|q| q.event_id).collect();
        rooms.retain(|event_id, _| live.contains(event_id));
        for state in read.queues {
            Self::set_in(&mut rooms, state);
        }
        for (event_id, join_id, order_key) in read.joins {
            if let Some(room) = rooms.get_mut(&event_id) {
                room.add(join_id, order_key);
            }
        }
        *self.cursor.write().expect("queue board lock") = read.next_cursor;
        self.ready.store(true, std::sync::atomic::Ordering::Release);
    }

    fn set_in(rooms: &mut HashMap<EventId, Room>, state: QueueState) {
        match rooms.get_mut(&state.event_id) {
            Some(room) => room.state = state,
            None => {
                rooms.insert(
                    state.event_id,
                    Room {
                        state,
                        keys: Vec::new(),
                        seen: HashSet::new(),
                    },
                );
            }
        }
    }

    /// Where the join with `order_key` stands; None if the event has no queue.
    pub fn standing(&self, event_id: EventId, order_key: i64, auto_rate: u32) -> Option<Standing> {
        let rooms = self.rooms.read().expect("queue board lock");
        let room = rooms.get(&event_id)?;
        let before = room.keys.partition_point(|k| *k < order_key) as u64;
        let rate = room
            .state
            .spec
            .admit_per_minute
            .map_or(auto_rate, |r| r.max(1) as u32);
        let opens_in = (room.state.spec.opens_at - time::OffsetDateTime::now_utc())
            .whole_seconds()
            .max(0) as u64;
        let admitted = room.state.admitted.max(0) as u64;
        Some(match place(before, admitted, rate, opens_in) {
            Some(place) => Standing::Waiting(place),
            None => Standing::Turn,
        })
    }
}

impl Room {
    fn add(&mut self, join_id: Uuid, order_key: i64) {
        if self.seen.insert(join_id) {
            let at = self.keys.partition_point(|k| *k < order_key);
            self.keys.insert(at, order_key);
        }
    }
}
