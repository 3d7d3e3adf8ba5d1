//! Promo codes: a discount per ticket (a percentage, or an amount never
//! taking a ticket below zero), perhaps only on some price types, within a
//! window and a number of uses. What a code takes off each line is here;
//! its uses are counted by PostgreSQL (`db::promo_codes`).

use time::OffsetDateTime;

use super::price_type::PricedLine;
use super::refusal::Invalid;

/// A code's discount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discount {
    /// 1 to 100 percent of each ticket's price, rounded half up per ticket.
    Percent(i32),
    /// This much off each ticket, never below zero.
    Amount(i32),
}

impl Discount {
    /// What it takes off one ticket of `price_cents`.
    pub fn off(self, price_cents: i32) -> i32 {
        match self {
            // Half up: (price × percent + 50) / 100, in integers.
            Discount::Percent(percent) => {
                ((i64::from(price_cents) * i64::from(percent) + 50) / 100) as i32
            }
            Discount::Amount(cents) => cents.min(price_cents),
        }
    }
}

/// A code staff make, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromoSpec {
    pub code: String,
    pub discount: Discount,
    pub max_uses: Option<i32>,
    pub valid_from: Option<OffsetDateTime>,
    pub valid_until: Option<OffsetDateTime>,
    /// The price type codes it applies to (None: every ticket).
    pub price_types: Option<Vec<String>>,
    /// A hidden price type it lets its buyers choose.
    pub unlocks: Option<String>,
}

fn invalid(text: impl Into<String>) -> Invalid {
    Invalid::PromoCode(text.into())
}

/// Reads a code's discount from the two fields staff may send, exactly one
/// of them.
pub fn discount(
    percent_off: Option<i64>,
    amount_off_cents: Option<i64>,
) -> Result<Discount, Invalid> {
    match (percent_off, amount_off_cents) {
        (Some(percent), None) if (1..=100).contains(&percent) => {
            Ok(Discount::Percent(percent as i32))
        }
        (None, Some(cents)) if (1..=super::money::MAX_PRICE_CENTS).contains(&cents) => {
            Ok(Discount::Amount(cents as i32))
        }
        (Some(_), Some(_)) | (None, None) => Err(invalid(
            "give exactly one of percent_off (1 to 100) and amount_off_cents",
        )),
        _ => Err(invalid(
            "percent_off is 1 to 100; amount_off_cents is 1 to 100000000",
        )),
    }
}

/// What a code the buyer or staff typed is matched by: ASCII letters
/// folded to lower case, as `lower(code COLLATE "C")` folds the stored
/// code (which the schema keeps to ASCII letters, digits, `_` and `-`).
/// Anything else stays as typed and so matches no code. PostgreSQL's
/// `lower()` in the database's own collation would fold a dotted `İ` to
/// `i` under C.UTF-8 (`SPRİNG20` matched `SPRING20`), and an `I` to a
/// dotless `ı` under a Turkish one; the "C" collation folds ASCII only.
pub fn match_key(typed: &str) -> String {
    typed.trim().to_ascii_lowercase()
}

/// Checks a code: 3 to 40 letters, digits, `_` and `-`; uses 1 or more; a
/// window that ends after it starts.
pub fn check(spec: &PromoSpec) -> Result<(), Invalid> {
    let code_ok = (3..=40).contains(&spec.code.len())
        && spec
            .code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !code_ok {
        return Err(invalid("a code is 3 to 40 letters, digits, _ and -"));
    }
    if spec.max_uses.is_some_and(|uses| uses < 1) {
        return Err(invalid("max_uses is 1 or more"));
    }
    if let (Some(from), Some(until)) = (spec.valid_from, spec.valid_until)
        && from >= until
    {
        return Err(invalid("valid_until must come after valid_from"));
    }
    if spec
        .price_types
        .as_ref()
        .is_some_and(|types| types.is_empty() || types.len() > 20)
    {
        return Err(invalid("price_types names 1 to 20 types, or is left out"));
    }
    Ok(())
}

/// Takes the code's discount off each line it applies to (`applies` says
/// which, by its type), returning what it took off in all: none applying
/// is `promo_code_not_applicable`.
pub fn apply(
    lines: &mut [PricedLine],
    discount: Discount,
    applies: impl Fn(&PricedLine) -> bool,
) -> Result<i64, Invalid> {
    let mut total = 0i64;
    let mut any = false;
    for line in lines.iter_mut().filter(|line| applies(line)) {
        any = true;
        let off = discount.off(line.price_cents);
        line.price_cents -= off;
        line.discount_cents += off;
        total += i64::from(off);
    }
    if !any {
        return Err(Invalid::PromoCodeNotApplicable);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::SeatId;

    fn line(seat: i64, cents: i32, kind: Option<i64>) -> PricedLine {
        PricedLine {
            place: crate::domain::price_type::Place::Seat(SeatId(seat)),
            price_type_id: kind,
            price_cents: cents,
            discount_cents: 0,
        }
    }

    #[test]
    fn a_percentage_rounds_half_up_per_ticket_and_an_amount_never_goes_below_zero() {
        assert_eq!(Discount::Percent(20).off(5500), 1100);
        // 12.5 cents rounds up; 12.4 down.
        assert_eq!(Discount::Percent(25).off(50), 13);
        assert_eq!(Discount::Percent(1).off(1240), 12);
        assert_eq!(Discount::Percent(100).off(999), 999);
        assert_eq!(Discount::Amount(500).off(5500), 500);
        assert_eq!(Discount::Amount(500).off(300), 300);
    }

    #[test]
    fn a_code_takes_off_only_the_lines_it_applies_to_and_refuses_when_none() {
        let mut lines = [line(1, 5500, Some(1)), line(2, 2500, Some(2))];
        let off = apply(&mut lines, Discount::Percent(20), |l| {
            l.price_type_id == Some(1)
        })
        .unwrap();
        assert_eq!(off, 1100);
        assert_eq!(
            (lines[0].price_cents, lines[0].discount_cents),
            (4400, 1100)
        );
        assert_eq!((lines[1].price_cents, lines[1].discount_cents), (2500, 0));
        assert_eq!(
            apply(&mut lines, Discount::Amount(100), |l| l.price_type_id
                == Some(9)),
            Err(Invalid::PromoCodeNotApplicable)
        );
    }

    #[test]
    fn a_typed_code_folds_ascii_case_only() {
        assert_eq!(match_key(" Spring20 "), "spring20");
        assert_ne!(match_key("SPRİNG20"), match_key("SPRING20"));
        assert_ne!(match_key("ſpring20"), match_key("spring20"));
    }

    #[test]
    fn staff_give_exactly_one_discount_and_a_sound_code() {
        assert_eq!(discount(Some(20), None), Ok(Discount::Percent(20)));
        assert_eq!(discount(None, Some(500)), Ok(Discount::Amount(500)));
        assert!(discount(Some(20), Some(500)).is_err());
        assert!(discount(None, None).is_err());
        assert!(discount(Some(101), None).is_err());
        let spec = PromoSpec {
            code: "SPRING20".into(),
            discount: Discount::Percent(20),
            max_uses: Some(10),
            valid_from: None,
            valid_until: None,
            price_types: None,
            unlocks: None,
        };
        assert!(check(&spec).is_ok());
        assert!(
            check(&PromoSpec {
                code: "a b".into(),
                ..spec.clone()
            })
            .is_err()
        );
        assert!(
            check(&PromoSpec {
                max_uses: Some(0),
                ..spec
            })
            .is_err()
        );
    }
}
