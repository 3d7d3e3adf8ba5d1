//! Input rules for holds and purchases, checked before anything touches
//! the database so bad input gets a precise 4xx.

use time::OffsetDateTime;

use super::email::Email;
use super::refusal::{Invalid, Refusal};
use crate::domain::ids::SeatId;
use crate::domain::refusal::{Counted, TimeField};
use crate::domain::seat::SeatIds;

/// A pick request's seat ids, sorted (the claim order) and checked: not
/// empty, no duplicates, not over the per-hold limit.
pub fn seat_ids_to_claim(seat_ids: &[SeatId], max_seats: u32) -> Result<SeatIds, Refusal> {
    if seat_ids.is_empty() {
        return Err(Refusal::Invalid(Invalid::NoSeats));
    }
    if seat_ids.len() > max_seats as usize {
        return Err(Refusal::HoldLimit { max: max_seats });
    }
    let sorted = SeatIds::new(seat_ids.iter().copied());
    if sorted.len() != seat_ids.len() {
        return Err(Refusal::Invalid(Invalid::DuplicateSeats));
    }
    Ok(sorted)
}

/// A best-available party size: 1 to the per-hold limit.
pub fn party_size(count: i64, max_seats: u32) -> Result<u32, Refusal> {
    count_up_to(count, max_seats, Counted::Seats)
}

/// How many of a party of `count` use a wheelchair: 0 to `count`.
pub fn wheelchair_users(wheelchair: i64, count: u32) -> Result<u32, Refusal> {
    match u32::try_from(wheelchair) {
        Ok(users) if users <= count => Ok(users),
        _ => Err(Refusal::Invalid(Invalid::WheelchairUsers { count })),
    }
}

fn count_up_to(count: i64, max: u32, of: Counted) -> Result<u32, Refusal> {
    match u32::try_from(count) {
        Ok(count) if (1..=max).contains(&count) => Ok(count),
        _ => Err(Refusal::Invalid(Invalid::CountOutOfRange { max, of })),
    }
}

/// How many general-admission tickets to hold: 1 to `max`.
pub fn ticket_count(count: i64, max: u32) -> Result<u32, Refusal> {
    count_up_to(count, max, Counted::Tickets)
}

/// Who an order is for, bought online: a name and an address to mail.
#[derive(Clone, Debug)]
pub struct BuyerDetails {
    pub name: String,
    pub email: Email,
    /// The language the order is bought in: its e-mail is written in it.
    pub lang: super::lang::Lang,
}

/// Who a walk-up sale is for: a name, and an address only if given.
#[derive(Clone, Debug)]
pub struct WalkUpBuyer {
    pub name: String,
    pub email: Option<Email>,
}

pub const MAX_NAME_CHARS: usize = 200;

/// The name and email on an order. Stricter than the database's CHECKs, so
/// anything accepted here is also accepted there.
pub fn buyer_details(
    name: &str,
    email: &str,
    lang: super::lang::Lang,
) -> Result<BuyerDetails, Refusal> {
    let name = name.trim();
    if name.is_empty() || !super::text::is_plain(name, MAX_NAME_CHARS) {
        return Err(Refusal::Invalid(Invalid::BuyerName {
            max_chars: MAX_NAME_CHARS,
        }));
    }
    Ok(BuyerDetails {
        name: name.to_string(),
        email: Email::parse(email).ok_or(Refusal::Invalid(Invalid::Email))?,
        lang,
    })
}

/// Seat names as staff type them: "C12, C13; Stalls D4". Each is plain
/// text no longer than a section name, a row and a seat label together;
/// anything else names no seat, and is quoted back as such.
pub fn seat_names(text: &str) -> Result<Vec<String>, Refusal> {
    use super::text::{MAX_LABEL_CHARS, MAX_NAME_CHARS, is_plain};
    text.split([',', ';', '\n'])
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            if is_plain(name, MAX_NAME_CHARS + 2 * MAX_LABEL_CHARS + 2) {
                Ok(name.to_string())
            } else {
                Err(Refusal::Invalid(Invalid::SeatName(name.to_string())))
            }
        })
        .collect()
}

/// A walk-up buyer at the box office: a name, and an email only if given.
pub fn walk_up_buyer(name: &str, email: &str) -> Result<WalkUpBuyer, Refusal> {
    if email.trim().is_empty() {
        let details = buyer_details(name, "walk-up@example.com", Default::default())?;
        Ok(WalkUpBuyer {
            name: details.name,
            email: None,
        })
    } else {
        let details = buyer_details(name, email, Default::default())?;
        Ok(WalkUpBuyer {
            name: details.name,
            email: Some(details.email),
        })
    }
}

/// An event's name and on-sale window as staff typed them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDetails {
    pub name: String,
    pub starts_at: OffsetDateTime,
    /// None: on sale as soon as the event is created.
    pub on_sale_at: Option<OffsetDateTime>,
}

/// Checks a new event's details: a name, a start in the future, and an
/// on-sale time (if any) before the start. Times are as an HTML
/// `datetime-local` input sends them ("2026-12-01T19:30"), read as UTC, or
/// RFC 3339.
pub fn event_details(
    name: &str,
    starts_at: &str,
    on_sale_at: &str,
    zone: &str,
    now: OffsetDateTime,
) -> Result<EventDetails, Refusal> {
    let name = name.trim();
    if name.is_empty() || !crate::domain::text::is_plain(name, crate::domain::text::MAX_NAME_CHARS)
    {
        return Err(Refusal::Invalid(Invalid::EventName));
    }
    let starts_at = super::local_time::instant(TimeField::Start, starts_at, zone)?;
    if starts_at <= now {
        return Err(Refusal::Invalid(Invalid::StartsInPast));
    }
    let on_sale_at = match on_sale_at.trim() {
        "" => None,
        text => Some(super::local_time::instant(TimeField::OnSale, text, zone)?),
    };
    if on_sale_at.is_some_and(|at| at >= starts_at) {
        return Err(Refusal::Invalid(Invalid::OnSaleAfterStart));
    }
    Ok(EventDetails {
        name: name.to_string(),
        starts_at,
        on_sale_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(err: Refusal) -> String {
        match err {
            Refusal::Invalid(invalid) => invalid.code().to_string(),
            Refusal::HoldLimit { .. } => "hold_limit".to_string(),
        }
    }

    #[test]
    fn seat_ids_are_sorted_for_a_fixed_claim_order() {
        assert_eq!(
            *seat_ids_to_claim(&[9, 3, 5].map(SeatId), 10).unwrap(),
            [3, 5, 9].map(SeatId)
        );
    }

    #[test]
    fn empty_duplicate_and_oversized_requests_are_refused() {
        assert_eq!(code(seat_ids_to_claim(&[], 10).unwrap_err()), "no_seats");
        assert_eq!(
            code(seat_ids_to_claim(&[4, 4].map(SeatId), 10).unwrap_err()),
            "duplicate_seats"
        );
        assert_eq!(
            code(seat_ids_to_claim(&[1, 2, 3].map(SeatId), 2).unwrap_err()),
            "hold_limit"
        );
    }

    #[test]
    fn party_sizes_run_from_one_to_the_hold_limit() {
        assert_eq!(party_size(1, 10).unwrap(), 1);
        assert_eq!(party_size(10, 10).unwrap(), 10);
        for bad in [0, -1, 11, i64::MAX] {
            assert_eq!(
                code(party_size(bad, 10).unwrap_err()),
                "invalid_count",
                "{bad}"
            );
        }
    }

    #[test]
    fn walk_up_buyers_may_leave_out_their_email_but_not_give_a_bad_one() {
        assert_eq!(walk_up_buyer("Ada", "  ").unwrap().email, None);
        assert_eq!(
            walk_up_buyer("Ada", "ada@example.com")
                .unwrap()
                .email
                .map(|e| e.to_string()),
            Some("ada@example.com".to_string())
        );
        assert_eq!(
            code(walk_up_buyer("Ada", "nope").unwrap_err()),
            "invalid_email"
        );
        assert_eq!(code(walk_up_buyer("", "").unwrap_err()), "invalid_name");
    }

    #[test]
    fn seat_names_are_split_and_must_be_plain_text() {
        assert_eq!(
            seat_names(" C12, C13;Stalls D4\n").unwrap(),
            vec!["C12", "C13", "Stalls D4"]
        );
        assert!(seat_names("").unwrap().is_empty());
        for bad in ["C\u{0}12", "C12, D\u{7}4", "\u{202E}21C"] {
            assert_eq!(
                code(seat_names(bad).unwrap_err()),
                "unknown_seat",
                "{bad:?}"
            );
        }
        assert!(seat_names(&"x".repeat(300)).is_err());
    }

    #[test]
    fn accepts_ordinary_names_and_emails_trimmed() {
        let details =
            buyer_details("  Ada Lovelace ", " ada@example.com ", Default::default()).unwrap();
        assert_eq!(details.name, "Ada Lovelace");
        assert_eq!(details.email.as_str(), "ada@example.com");
    }

    #[test]
    fn refuses_bad_emails_and_names() {
        for email in [
            "",
            "not-an-email",
            "a@b",
            "two@@example.com",
            "\"a b\"@example.com",
            "a@b@example.com",
            "trailing@example.",
        ] {
            assert_eq!(
                code(buyer_details("Ada", email, Default::default()).unwrap_err()),
                "invalid_email",
                "{email}"
            );
        }
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        for name in [
            "",
            "   ",
            long.as_str(),
            "bell\u{7}",
            "\u{202E}ecila",
            "Ad\u{FEFF}a",
        ] {
            assert_eq!(
                code(buyer_details(name, "a@example.com", Default::default()).unwrap_err()),
                "invalid_name"
            );
        }
    }

    #[test]
    fn event_details_need_a_name_a_future_start_and_sales_before_it() {
        let now = time::macros::datetime!(2026-11-21 12:00 UTC);
        let ok = event_details(
            " Gala ",
            "2026-12-01T19:30",
            "2026-11-25T09:00:00",
            "UTC",
            now,
        )
        .unwrap();
        assert_eq!(ok.name, "Gala");
        assert_eq!(ok.starts_at, time::macros::datetime!(2026-12-01 19:30 UTC));
        assert_eq!(
            ok.on_sale_at,
            Some(time::macros::datetime!(2026-11-25 09:00 UTC))
        );
        let at_once = event_details("Gala", "2026-12-01T19:30:00Z", "", "UTC", now).unwrap();
        assert_eq!(at_once.on_sale_at, None);
        for (name, starts, on_sale, code) in [
            ("", "2026-12-01T19:30", "", "invalid_name"),
            ("Gala", "tomorrow", "", "invalid_time"),
            ("Gala", "2026-11-20T19:30", "", "starts_in_past"),
            (
                "Gala",
                "2026-12-01T19:30",
                "2026-12-01T19:30",
                "on_sale_after_start",
            ),
            ("Gala", "2026-12-01T19:30", "soon", "invalid_time"),
        ] {
            match event_details(name, starts, on_sale, "UTC", now) {
                Err(Refusal::Invalid(got)) => assert_eq!(got.code().as_str(), code),
                other => panic!("{name:?} {starts:?} {on_sale:?}: {other:?}"),
            }
        }
    }
}
