//! The load generator and the database chores around it, shared by the
//! `seatmap-bench` binary, its benchmarks and seatmap's load tests.

pub mod loadgen;
pub mod reset;
