//! Load scenarios that drive a running seatmap over HTTP on loopback, one
//! cookie jar per simulated buyer, bounded in count and time. `seatmap-bench`
//! runs them at full size; the test suite runs them small. Every scenario
//! records what the clients were told, so the database can be checked
//! against it afterwards (`verify`).
//!
//! By concern: the report and the checks after a run (`report`), the HTTP
//! plumbing every scenario shares (`requests`), buyers claiming seats
//! (`holds`), buying them (`sales`), the door (`door`), open pages
//! (`live`), reads beside a buyer (`flood`), stalled request bodies
//! (`stall`) and on-sale day behind the waiting room (`onsale`).

mod door;
mod flood;
mod holds;
mod live;
mod onsale;
mod report;
mod requests;
mod sales;
mod stall;

pub use door::{door, door_list_times};
pub use flood::{FloodReport, read_flood};
pub use holds::{best, ga, hot_seat, mixed, picks};
pub use live::{LiveReport, live};
pub use onsale::{AfterOpening, Timings, Waiter, after_opening, join_crowd, polls_only};
pub use report::{Report, verify};
pub use sales::{sales, sales_as};
pub use stall::{StallReport, stalled_bodies};

use std::sync::Arc;

/// A running app and the event to load.
#[derive(Clone)]
pub struct Target {
    /// One or more instances' base URLs; buyers are spread across them.
    pub bases: Vec<String>,
    pub event_id: i64,
    pub seat_ids: Arc<Vec<i64>>,
}

impl Target {
    fn base(&self, buyer: usize) -> &str {
        &self.bases[buyer % self.bases.len()]
    }
}
