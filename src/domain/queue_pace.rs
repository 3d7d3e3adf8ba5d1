//! How an "auto" waiting room paces itself: it keeps a target number of
//! admitted buyers shopping, and each tick moves that target by a factor
//! worked out here from what the instance measured of the house's claims
//! (picks, best available, GA, season and waitlist claims) over the last
//! few seconds.
//!
//! The rule is the gradient rule of adaptive concurrency limits (Netflix's
//! `concurrency-limits`, Envoy's adaptive concurrency filter), with the
//! claims' p95 in place of a round trip:
//! - the latency factor is `budget / p95`: a house answering claims
//!   within budget may take more shoppers, one over budget must take
//!   fewer, in proportion to the overshoot;
//! - the pool factor is Little's law on the measured claims per second:
//!   claims in flight = claims/s × mean latency. More shoppers than the
//!   pool can serve queue on the pool, and the p95 follows a moment later;
//!   the factor keeps the projected claims in flight within
//!   [`POOL_SHARE`] of the pool before that happens;
//! - the smaller of the two moves the target, bounded to [`MAX_CUT`,
//!   `MAX_GROWTH`] a tick so one noisy second can't swing it.
//!
//! With too few claims to judge, the target creeps up by
//! [`PROBE_GROWTH`]. A cut is from the target, bounded like growth.
//! The target only grows while it binds (the shoppers are near it); see
//! `db::queue::admit_batch`, which applies the factor in its statement.

use std::time::Duration;

/// What one instance measured of claims over its recent window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClaimSample {
    pub count: usize,
    pub per_second: f64,
    pub p95: Duration,
    pub mean: Duration,
}

/// The most the target grows in one tick.
pub const MAX_GROWTH: f64 = 1.15;
/// The most it shrinks in one tick: the p95 is read over a window of
/// seconds, so one burst is over budget for several ticks in a row.
pub const MAX_CUT: f64 = 0.7;
/// Fewer claims than this in the window say nothing about the house.
pub const MIN_SAMPLES: usize = 20;
/// The growth with too few claims to judge: few claims load little, so
/// the target creeps up (a target cut below the shoppers must climb back
/// past them before anyone is admitted and claims again), but slowly:
/// buyers who claim nothing are weak evidence.
pub const PROBE_GROWTH: f64 = 1.05;
/// The share of the pool that claims in flight may take: the rest is for
/// pages, checkout and the workers.
pub const POOL_SHARE: f64 = 0.8;
/// The target an auto queue never goes below: a slow second must not
/// close the doors.
pub const MIN_TARGET: i64 = 10;

/// The factor an auto queue's target moves by this tick.
pub fn growth(sample: Option<ClaimSample>, p95_budget: Duration, pool_size: usize) -> f64 {
    let Some(sample) = sample.filter(|s| s.count >= MIN_SAMPLES) else {
        return PROBE_GROWTH;
    };
    let latency = p95_budget.as_secs_f64() / sample.p95.as_secs_f64().max(1e-4);
    let in_flight = sample.per_second * sample.mean.as_secs_f64();
    let pool = match in_flight > 0.0 {
        true => pool_size as f64 * POOL_SHARE / in_flight,
        false => f64::INFINITY,
    };
    latency.min(pool).clamp(MAX_CUT, MAX_GROWTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(per_second: f64, p95_ms: u64, mean_ms: u64) -> Option<ClaimSample> {
        Some(ClaimSample {
            count: 500,
            per_second,
            p95: Duration::from_millis(p95_ms),
            mean: Duration::from_millis(mean_ms),
        })
    }

    const BUDGET: Duration = Duration::from_millis(200);

    #[test]
    fn a_house_well_within_budget_grows_the_target_by_the_most_a_tick_allows() {
        assert_eq!(growth(sample(100.0, 20, 10), BUDGET, 32), MAX_GROWTH);
    }

    #[test]
    fn a_house_over_budget_cuts_in_proportion_to_the_overshoot() {
        let g = growth(sample(100.0, 250, 100), BUDGET, 1000);
        assert!((g - 0.8).abs() < 1e-9, "{g}");
    }

    #[test]
    fn a_cut_is_bounded_so_one_bad_second_does_not_close_the_doors() {
        assert_eq!(growth(sample(100.0, 5_000, 100), BUDGET, 1000), MAX_CUT);
    }

    #[test]
    fn at_budget_the_target_holds() {
        let g = growth(sample(100.0, 200, 50), BUDGET, 1000);
        assert!((g - 1.0).abs() < 1e-9, "{g}");
    }

    #[test]
    fn the_pool_caps_growth_before_the_latency_shows_it() {
        // 480 claims/s × 50 ms = 24 in flight; 80 % of a 32 pool is 25.6,
        // while the latency alone (60 ms of 200) would allow the most.
        let g = growth(sample(480.0, 60, 50), BUDGET, 32);
        assert!((g - 25.6 / 24.0).abs() < 1e-9, "{g}");
        // 600 claims/s × 50 ms = 30 in flight: over the share, so a cut.
        let g = growth(sample(600.0, 60, 50), BUDGET, 32);
        assert!((g - 25.6 / 30.0).abs() < 1e-9, "{g}");
    }

    #[test]
    fn too_few_claims_only_probe() {
        assert_eq!(growth(None, BUDGET, 32), PROBE_GROWTH);
        let few = Some(ClaimSample {
            count: MIN_SAMPLES - 1,
            per_second: 1.0,
            p95: Duration::from_secs(10),
            mean: Duration::from_secs(10),
        });
        assert_eq!(growth(few, BUDGET, 32), PROBE_GROWTH);
    }
}
