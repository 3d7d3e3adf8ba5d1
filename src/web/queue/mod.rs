//! The waiting room (issue 52): the instance's board of queue figures,
//! the gate on claims, and the JSON API.

pub mod api;
pub mod board;
pub mod gate;
