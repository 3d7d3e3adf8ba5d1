//! The waiting room (issue 52): the gate on claims, the JSON API and the waiting page.

pub mod api;
pub mod gate;
pub mod page;
