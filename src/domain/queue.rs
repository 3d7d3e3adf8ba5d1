//! The waiting room's pure rules: queue tickets and proof-of-work
//! challenges, each signed with the key every instance shares, so both
//! are checked without a database read; the puzzle's check; and a waiting
//! buyer's place worked out from the queue's figures.
//!
//! A ticket names its event, its join (a random id), its place in the
//! admission order and an expiry. It can't be made for another event or
//! another place, nor used past its expiry; what it admits to is decided
//! by PostgreSQL (the join's row), not by the ticket.

use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use uuid::Uuid;

use super::ids::EventId;
use super::signed_link::LinkKey;

const TICKET_TAG: &[u8] = b"seatmap queue ticket v1\0";
const CHALLENGE_TAG: &[u8] = b"seatmap queue challenge v1\0";

/// How long a queue ticket is good for: a long wait, then the shopping
/// window, with room to spare; not for days.
pub const TICKET_LIFETIME: time::Duration = time::Duration::hours(12);
/// How long a proof-of-work challenge may be answered.
pub const CHALLENGE_LIFETIME: time::Duration = time::Duration::minutes(10);

/// A buyer's place in an event's queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueTicket {
    pub event_id: EventId,
    pub join_id: Uuid,
    /// The join's place in the admission order (see migration V31).
    pub order_key: i64,
    /// Unix seconds.
    pub until: i64,
}

impl QueueTicket {
    fn fields(&self) -> String {
        format!(
            "{}.{}.{}.{}",
            self.event_id,
            self.join_id.simple(),
            self.order_key,
            self.until
        )
    }

    /// `event.join.order_key.until.sig`: safe in a cookie and a header.
    pub fn encode(&self, key: &LinkKey) -> String {
        let fields = self.fields();
        let sig = key.sign_text(TICKET_TAG, &fields);
        format!("{fields}.{sig}")
    }

    /// The ticket in `text`, if it is signed, for `event_id`, and not past
    /// its expiry at `now`.
    pub fn verify(
        text: &str,
        event_id: EventId,
        key: &LinkKey,
        now: OffsetDateTime,
    ) -> Option<QueueTicket> {
        let (fields, sig) = text.trim().rsplit_once('.')?;
        let mut parts = fields.split('.');
        let ticket = QueueTicket {
            event_id: EventId(parts.next()?.parse().ok()?),
            join_id: Uuid::try_parse(parts.next()?).ok()?,
            order_key: parts.next()?.parse().ok()?,
            until: parts.next()?.parse().ok()?,
        };
        let well_formed = parts.next().is_none() && ticket.fields() == fields;
        (well_formed
            && ticket.event_id == event_id
            && ticket.until >= now.unix_timestamp()
            && key.verify_text(TICKET_TAG, fields, sig))
        .then_some(ticket)
    }
}

/// A hashcash-style puzzle the server sets: find a nonce such that
/// SHA-256 of `"{challenge}:{nonce}"` starts with `bits` zero bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Challenge {
    pub event_id: EventId,
    pub id: Uuid,
    pub bits: u32,
    pub until: i64,
}

/// Why an answer to a challenge was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeRefused {
    /// Forged, for another event, past its time, or the hash falls short.
    Wrong,
}

impl Challenge {
    fn fields(&self) -> String {
        format!(
            "{}.{}.{}.{}",
            self.event_id,
            self.id.simple(),
            self.bits,
            self.until
        )
    }

    pub fn encode(&self, key: &LinkKey) -> String {
        let fields = self.fields();
        let sig = key.sign_text(CHALLENGE_TAG, &fields);
        format!("{fields}.{sig}")
    }

    /// The challenge, if `text` is one we set for this event and it is
    /// still open, and `nonce` solves it. Reuse is the join's to refuse
    /// (the challenge's id is unique among joins).
    pub fn check(
        text: &str,
        nonce: &str,
        event_id: EventId,
        key: &LinkKey,
        now: OffsetDateTime,
    ) -> Result<Challenge, ChallengeRefused> {
        let parsed = || -> Option<Challenge> {
            let (fields, sig) = text.trim().rsplit_once('.')?;
            let mut parts = fields.split('.');
            let challenge = Challenge {
                event_id: EventId(parts.next()?.parse().ok()?),
                id: Uuid::try_parse(parts.next()?).ok()?,
                bits: parts.next()?.parse().ok()?,
                until: parts.next()?.parse().ok()?,
            };
            (parts.next().is_none()
                && challenge.fields() == fields
                && key.verify_text(CHALLENGE_TAG, fields, sig))
            .then_some(challenge)
        };
        let challenge = parsed().ok_or(ChallengeRefused::Wrong)?;
        let open = challenge.event_id == event_id && challenge.until >= now.unix_timestamp();
        let solved = nonce.len() <= 64 && solves(text.trim(), nonce, challenge.bits);
        match open && solved {
            true => Ok(challenge),
            false => Err(ChallengeRefused::Wrong),
        }
    }
}

/// Whether SHA-256 of `"{challenge}:{nonce}"` starts with `bits` zero bits.
pub fn solves(challenge: &str, nonce: &str, bits: u32) -> bool {
    let hash = Sha256::digest(format!("{challenge}:{nonce}").as_bytes());
    leading_zero_bits(&hash) >= bits
}

pub fn leading_zero_bits(bytes: &[u8]) -> u32 {
    let mut bits = 0;
    for byte in bytes {
        if *byte == 0 {
            bits += 8;
        } else {
            return bits + byte.leading_zeros();
        }
    }
    bits
}

/// The first nonce (counting up from 0) that solves the challenge: what a
/// browser does, for the tests and the bench.
pub fn solve(challenge: &str, bits: u32) -> String {
    (0u64..)
        .map(|n| n.to_string())
        .find(|nonce| solves(challenge, nonce, bits))
        .expect("some nonce solves any puzzle of 32 bits or fewer")
}

/// The most zero bits a join's puzzle is ever asked for (about 10^9
/// hashes: minutes of one core's work, which no honest joiner meets).
pub const MAX_JOIN_BITS: u32 = 30;

/// The proof of work a client's next join of an event's queue needs, when
/// it has joined `recent` times in the last minute: none within its free
/// allowance (unless the queue always asks, `always`, for `base` bits);
/// past it, `base` bits and one more each time the count doubles again.
/// A real phone behind a carrier address solves its own puzzle (a second
/// or two at 16–18 bits); one machine minting many identities pays for
/// each in turn, each dearer than the last (the total grows with the
/// square of the count).
pub fn join_bits(recent: u64, free: u32, base: u32, always: bool) -> u32 {
    let free = u64::from(free.max(1));
    let bits = match recent.checked_div(free).filter(|times| *times >= 1) {
        Some(times) => base + times.ilog2(),
        None if always => base,
        None => 0,
    };
    bits.min(MAX_JOIN_BITS)
}

/// The seats one client's admitted buyers may hold together on an event
/// of `house` seats and places: `percent` of it, at least `min_seats`.
pub fn house_share(house: i64, percent: u32, min_seats: u32) -> u32 {
    let share = (house.max(0) as u64 * u64::from(percent)).div_ceil(100);
    share.max(u64::from(min_seats)).min(u64::from(u32::MAX)) as u32
}

/// Where a waiting buyer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// 1-based, in the admission order, counting those already admitted.
    pub position: u64,
    /// Buyers still to be admitted before this one.
    pub ahead: u64,
    pub estimated_wait_secs: u64,
}

/// The place of the join whose order key has `before` keys below it, when
/// `admitted` have been admitted at `per_minute` and the queue opens in
/// `opens_in_secs` (0 once open); None once it is its turn.
pub fn place(before: u64, admitted: u64, per_minute: u32, opens_in_secs: u64) -> Option<Place> {
    let ahead = before.checked_sub(admitted)?;
    let per_minute = u64::from(per_minute.max(1));
    Some(Place {
        position: before + 1,
        ahead,
        // Admissions come once a second in batches: the next one is at most a second away.
        estimated_wait_secs: opens_in_secs + ((ahead + 1) * 60).div_ceil(per_minute).max(1),
    })
}

#[cfg(test)]
mod join_cost_tests {
    use super::*;

    #[test]
    fn joins_are_free_within_the_allowance_and_dearer_each_doubling_past_it() {
        assert_eq!(join_bits(0, 20, 16, false), 0);
        assert_eq!(join_bits(19, 20, 16, false), 0);
        assert_eq!(join_bits(20, 20, 16, false), 16);
        assert_eq!(join_bits(39, 20, 16, false), 16);
        assert_eq!(join_bits(40, 20, 16, false), 17);
        assert_eq!(join_bits(80, 20, 16, false), 18);
        assert_eq!(join_bits(1_500, 20, 16, false), 22);
        assert_eq!(join_bits(u64::MAX, 1, 16, false), MAX_JOIN_BITS);
    }

    #[test]
    fn a_queue_that_always_asks_asks_its_base_within_the_allowance() {
        assert_eq!(join_bits(0, 20, 16, true), 16);
        assert_eq!(join_bits(40, 20, 16, true), 17);
        assert_eq!(join_bits(0, 20, 0, true), 0);
    }

    #[test]
    fn the_share_is_the_larger_of_the_percent_and_the_floor() {
        assert_eq!(house_share(20_000, 5, 200), 1_000);
        assert_eq!(house_share(2_050, 5, 200), 200);
        assert_eq!(house_share(4_001, 5, 200), 201);
        assert_eq!(house_share(0, 5, 200), 200);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> LinkKey {
        LinkKey::new(vec![7; 32])
    }

    fn now() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap()
    }

    fn ticket() -> QueueTicket {
        QueueTicket {
            event_id: EventId(4),
            join_id: Uuid::from_u128(99),
            order_key: -12345,
            until: now().unix_timestamp() + 60,
        }
    }

    #[test]
    fn a_ticket_verifies_only_for_its_event_unaltered_and_in_time() {
        let text = ticket().encode(&key());
        assert_eq!(
            QueueTicket::verify(&text, EventId(4), &key(), now()),
            Some(ticket())
        );
        assert_eq!(QueueTicket::verify(&text, EventId(5), &key(), now()), None);
        let later = now() + time::Duration::seconds(61);
        assert_eq!(QueueTicket::verify(&text, EventId(4), &key(), later), None);
        let other_key = LinkKey::new(vec![8; 32]);
        assert_eq!(
            QueueTicket::verify(&text, EventId(4), &other_key, now()),
            None
        );
        // A better place, keeping the signature: refused.
        let moved = text.replacen("-12345", "-99999", 1);
        assert_eq!(QueueTicket::verify(&moved, EventId(4), &key(), now()), None);
        for junk in ["", ".", "4.x.1.2.ab", "4..-1.1.00", &format!("{text}.0")] {
            assert_eq!(QueueTicket::verify(junk, EventId(4), &key(), now()), None);
        }
    }

    #[test]
    fn a_challenge_takes_a_right_answer_and_refuses_a_wrong_one() {
        let challenge = Challenge {
            event_id: EventId(4),
            id: Uuid::from_u128(5),
            bits: 10,
            until: now().unix_timestamp() + 60,
        };
        let text = challenge.encode(&key());
        let nonce = solve(&text, 10);
        assert_eq!(
            Challenge::check(&text, &nonce, EventId(4), &key(), now()),
            Ok(challenge)
        );
        let wrong = (0u64..)
            .map(|n| n.to_string())
            .find(|n| !solves(&text, n, 10))
            .unwrap();
        assert!(Challenge::check(&text, &wrong, EventId(4), &key(), now()).is_err());
        assert!(Challenge::check(&text, &nonce, EventId(3), &key(), now()).is_err());
        let easier = text.replacen(".10.", ".0.", 1);
        assert!(Challenge::check(&easier, "0", EventId(4), &key(), now()).is_err());
        let late = now() + time::Duration::seconds(61);
        assert!(Challenge::check(&text, &nonce, EventId(4), &key(), late).is_err());
    }

    #[test]
    fn leading_zero_bits_count_across_bytes() {
        assert_eq!(leading_zero_bits(&[0, 0, 0x10]), 19);
        assert_eq!(leading_zero_bits(&[0x80]), 0);
        assert_eq!(leading_zero_bits(&[0, 1]), 15);
    }

    #[test]
    fn a_place_counts_who_is_ahead_and_how_long_they_take() {
        assert_eq!(
            place(130, 10, 60, 0),
            Some(Place {
                position: 131,
                ahead: 120,
                estimated_wait_secs: 121
            })
        );
        assert_eq!(place(9, 10, 60, 0), None);
        assert_eq!(place(10, 10, 600, 0).unwrap().estimated_wait_secs, 1);
        // Before the opening, nobody is let in until it.
        assert_eq!(place(0, 0, 600, 600).unwrap().estimated_wait_secs, 601);
    }
}
