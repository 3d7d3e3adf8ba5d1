//! The waiting room (issue 52): the instance's board of queue figures,
//! the gate on claims, the JSON API and the waiting page.

pub mod api;
pub mod board;
pub mod gate;
pub mod page;
