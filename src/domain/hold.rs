//! A hold, as the sale's rules see it: its state, the rules a hold keeps,
//! what a request asks to add (a cart) and what a claim leaves the buyer
//! holding. The statements that make and change holds are `db::holds`'s.

use std::time::Duration;

use serde::Serialize;
use time::OffsetDateTime;

use super::ids::{AreaId, BuyerId, EventId, HoldId, SeatId};
use super::locale::EventLocale;
use super::payment::PaymentMode;
use super::refusal::Refusal;
use super::seat::{Seat, SeatIds};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldState {
    Open,
    Released,
    Purchased,
    Expired,
    /// Checked out: its seats wait for the order's payment.
    Paying,
}

impl HoldState {
    /// From the `holds.state` column's text.
    pub fn from_db(state: &str) -> HoldState {
        match state {
            "OPEN" => HoldState::Open,
            "RELEASED" => HoldState::Released,
            "PURCHASED" => HoldState::Purchased,
            "PAYING" => HoldState::Paying,
            _ => HoldState::Expired,
        }
    }
}

/// The rules a new or growing hold must keep.
#[derive(Debug, Clone, Copy)]
pub struct HoldRules {
    pub ttl: Duration,
    pub max_seats: u32,
    /// Live holds one client address may have (0 = no cap).
    pub max_holds_per_ip: u32,
    /// Live holds made with one API key, all its customers (0 = no cap).
    pub max_holds_per_key: u32,
    /// Seats and places the client's admitted buyers (its address's, or its
    /// key's customers) may hold on the event together (0 = no share: the
    /// event has no waiting room, whose admissions lift the caps above).
    pub share_seats: u32,
}

#[derive(Debug, Clone)]
pub struct Hold {
    pub id: HoldId,
    pub event_id: EventId,
    pub buyer_id: BuyerId,
    pub state: HoldState,
    pub expires_at: OffsetDateTime,
    /// Open and not yet past its expiry, by the database's clock.
    pub live: bool,
    /// Closed by box-office staff rather than by the buyer.
    pub released_by_staff: bool,
    /// Its one "need more time" extension has been used.
    pub extended: bool,
    /// How its event shows prices and times.
    pub locale: EventLocale,
    /// How its event is paid for.
    pub payment: PaymentMode,
}

/// What a successful claim leaves the buyer holding.
#[derive(Debug, Clone)]
pub struct HoldSummary {
    pub hold_id: HoldId,
    pub expires_at: OffsetDateTime,
    pub seat_ids: SeatIds,
    /// The hold as the transaction leaves it, and its seats as its buyer
    /// sees them, in layout order: what a page shows without reading again.
    pub hold: Hold,
    pub seats: Vec<Seat>,
    /// General-admission tickets, by area.
    pub ga: Vec<GaHeld>,
}

/// What one request asks to add to a hold: seats by id, GA tickets by area.
#[derive(Debug, Clone, Default)]
pub struct Cart {
    pub seat_ids: SeatIds,
    pub ga: Vec<GaRequest>,
}

impl Cart {
    pub fn seats(seat_ids: &[SeatId]) -> Cart {
        Cart {
            seat_ids: SeatIds::new(seat_ids.iter().copied()),
            ga: Vec::new(),
        }
    }
}

/// Tickets wanted from one area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GaRequest {
    pub area_id: AreaId,
    pub quantity: u32,
}

/// Tickets a hold has in one area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct GaHeld {
    #[serde(rename = "area")]
    #[schema(value_type = i64)]
    pub area_id: AreaId,
    #[serde(rename = "count")]
    pub quantity: i32,
}

impl Cart {
    /// The cart in the order every claim takes things in: GA areas by id,
    /// an area named twice being one request for the sum (seat ids are
    /// sorted and distinct already).
    pub fn in_claim_order(&self) -> Cart {
        let mut ga: Vec<GaRequest> = Vec::with_capacity(self.ga.len());
        let mut requested = self.ga.clone();
        requested.sort_by_key(|r| r.area_id);
        for request in requested {
            match ga.last_mut() {
                Some(last) if last.area_id == request.area_id => {
                    last.quantity = last.quantity.saturating_add(request.quantity)
                }
                _ => ga.push(request),
            }
        }
        Cart {
            seat_ids: self.seat_ids.clone(),
            ga,
        }
    }
}

/// How many GA tickets these are, all areas together.
pub fn ga_ticket_count(held: &[GaHeld]) -> usize {
    held.iter().map(|h| h.quantity as usize).sum()
}

impl HoldSummary {
    /// Refuses a hold that, with `adding` more, would have more than `max`
    /// tickets, seats and GA together.
    pub fn refuse_if_over(&self, adding: usize, max: u32) -> Result<(), Refusal> {
        if self.seat_ids.len() + ga_ticket_count(&self.ga) + adding > max as usize {
            return Err(Refusal::HoldLimit { max });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(id: i64, quantity: u32) -> GaRequest {
        GaRequest {
            area_id: AreaId::from(id),
            quantity,
        }
    }

    #[test]
    fn a_cart_takes_areas_in_id_order_and_sums_an_area_named_twice() {
        let cart = Cart {
            seat_ids: SeatIds::default(),
            ga: vec![area(7, 2), area(3, 1), area(7, 5)],
        };
        let ordered = cart.in_claim_order();
        assert_eq!(ordered.ga, vec![area(3, 1), area(7, 7)]);
    }

    #[test]
    fn a_sum_that_would_overflow_saturates_instead() {
        let cart = Cart {
            seat_ids: SeatIds::default(),
            ga: vec![area(1, u32::MAX), area(1, 9)],
        };
        assert_eq!(cart.in_claim_order().ga, vec![area(1, u32::MAX)]);
    }
}
