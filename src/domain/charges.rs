//! Booking fees and tax: what an event adds to its tickets' prices, and a
//! receipt's totals. The stored money is computed by PostgreSQL when the
//! tickets are issued (`ticket_tax_cents` in migration V24); this computes
//! the same sums to show before a purchase, and a test holds the two to
//! the same answers.

use super::refusal::Invalid;

/// A tax rate and how prices carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tax {
    /// The rate in hundredths of a percent: 19 % is 1900.
    pub rate_hundredths: i32,
    /// EU style: the price already contains the tax. Otherwise (US style)
    /// the tax is added on top.
    pub included: bool,
}

impl Tax {
    /// Reads a rate as staff write it ("19", "7.5", "8.25"): above 0 and
    /// below 100, at most two decimals.
    pub fn parse(rate_percent: &str, included: bool) -> Result<Tax, Invalid> {
        let bad = || {
            Invalid::Charges("tax.rate_percent is a number above 0 and below 100, with at most two decimals, such as \"19\" or \"7.5\"".into())
        };
        let text = rate_percent.trim();
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits_only = |part: &str| part.chars().all(|c| c.is_ascii_digit());
        if whole.is_empty()
            || whole.len() > 2
            || fraction.len() > 2
            || !digits_only(whole)
            || !digits_only(fraction)
        {
            return Err(bad());
        }
        let whole: i32 = whole.parse().map_err(|_| bad())?;
        let fraction: i32 = match fraction.len() {
            0 => 0,
            1 => fraction.parse::<i32>().map_err(|_| bad())? * 10,
            _ => fraction.parse().map_err(|_| bad())?,
        };
        let rate_hundredths = whole * 100 + fraction;
        if rate_hundredths == 0 {
            return Err(bad());
        }
        Ok(Tax {
            rate_hundredths,
            included,
        })
    }

    /// The rate as a percent without trailing zeros: "19", "7.5".
    pub fn rate_text(self) -> String {
        let whole = self.rate_hundredths / 100;
        match self.rate_hundredths % 100 {
            0 => whole.to_string(),
            f if f % 10 == 0 => format!("{whole}.{}", f / 10),
            f => format!("{whole}.{f:02}"),
        }
    }

    /// The tax in (included) or on (added) `amount_cents`, rounded half up:
    /// what `ticket_tax_cents` stores.
    pub fn on(self, amount_cents: i64) -> i64 {
        let rate = i64::from(self.rate_hundredths);
        let (numerator, denominator) = match self.included {
            true => (amount_cents * rate, 10_000 + rate),
            false => (amount_cents * rate, 10_000),
        };
        (2 * numerator + denominator) / (2 * denominator)
    }
}

/// What an event adds to its tickets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charges {
    /// Per ticket; none on a comp.
    pub booking_fee_cents: i32,
    /// None: no tax line.
    pub tax: Option<Tax>,
    /// A refund pays the fee back too.
    pub fees_refundable: bool,
}

impl Default for Charges {
    fn default() -> Self {
        Charges {
            booking_fee_cents: 0,
            tax: None,
            fees_refundable: true,
        }
    }
}

/// Checks a booking fee staff ask for.
pub fn check_fee(cents: i64) -> Result<i32, Invalid> {
    super::money::price_cents(cents).ok_or_else(|| {
        Invalid::Charges(format!(
            "booking_fee_cents is 0 to {}",
            super::money::MAX_PRICE_CENTS
        ))
    })
}

/// A receipt's totals: `total = subtotal − discount + fees (+ tax when it
/// is added on top)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// The tickets at their types' prices, before any discount.
    pub subtotal_cents: i64,
    pub discount_cents: i64,
    pub fees_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
}

impl Charges {
    /// The totals of tickets priced `(price after discount, discount)`,
    /// each charged the fee and taxed on its own, as a purchase issues them.
    pub fn totals(&self, tickets: &[(i64, i64)]) -> Totals {
        let mut totals = Totals::default();
        for &(price, discount) in tickets {
            let fee = i64::from(self.booking_fee_cents);
            totals.subtotal_cents += price + discount;
            totals.discount_cents += discount;
            totals.fees_cents += fee;
            if let Some(tax) = self.tax {
                totals.tax_cents += tax.on(price) + tax.on(fee);
            }
        }
        let added_tax = match self.tax {
            Some(tax) if !tax.included => totals.tax_cents,
            _ => 0,
        };
        totals.total_cents =
            totals.subtotal_cents - totals.discount_cents + totals.fees_cents + added_tax;
        totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_read_as_staff_write_them() {
        assert_eq!(Tax::parse("19", true).unwrap().rate_hundredths, 1900);
        assert_eq!(Tax::parse("7.5", true).unwrap().rate_hundredths, 750);
        assert_eq!(Tax::parse(" 8.25 ", false).unwrap().rate_hundredths, 825);
        for bad in ["0", "100", "-5", "19%", "7.555", "", ".5", "1e1", "abc"] {
            assert!(Tax::parse(bad, true).is_err(), "{bad:?} was accepted");
        }
        assert_eq!(Tax::parse("7.50", true).unwrap().rate_text(), "7.5");
        assert_eq!(Tax::parse("19", true).unwrap().rate_text(), "19");
        assert_eq!(Tax::parse("8.25", true).unwrap().rate_text(), "8.25");
        assert_eq!(Tax::parse("0.05", true).unwrap().rate_text(), "0.05");
    }

    #[test]
    fn included_tax_is_the_share_of_the_price_rounded_half_up() {
        let vat = Tax {
            rate_hundredths: 1900,
            included: true,
        };
        // 5500 × 19 / 119 = 878.15…
        assert_eq!(vat.on(5500), 878);
        // 119 × 19 / 119 = 19 exactly.
        assert_eq!(vat.on(119), 19);
        // 150 × 19 / 119 = 23.949…
        assert_eq!(vat.on(150), 24);
        assert_eq!(vat.on(0), 0);
    }

    #[test]
    fn added_tax_is_on_top_rounded_half_up() {
        let sales = Tax {
            rate_hundredths: 850,
            included: false,
        };
        // 1000 × 8.5 % = 85; 1 × 8.5 % = 0.085; 6 × 8.5 % = 0.51.
        assert_eq!(sales.on(1000), 85);
        assert_eq!(sales.on(1), 0);
        assert_eq!(sales.on(6), 1);
        // Exactly half: 100 × 0.5 % = 0.5 rounds up.
        assert_eq!(
            Tax {
                rate_hundredths: 50,
                included: false
            }
            .on(100),
            1
        );
    }

    #[test]
    fn totals_add_up_with_the_tax_included_or_added() {
        let mut charges = Charges {
            booking_fee_cents: 150,
            tax: Some(Tax {
                rate_hundredths: 1900,
                included: true,
            }),
            fees_refundable: true,
        };
        // Adult 5500, Child 2500 less a 500 discount.
        let tickets = [(5500, 0), (2000, 500)];
        let included = charges.totals(&tickets);
        assert_eq!(included.subtotal_cents, 8000);
        assert_eq!(included.discount_cents, 500);
        assert_eq!(included.fees_cents, 300);
        assert_eq!(included.tax_cents, 878 + 24 + 319 + 24);
        assert_eq!(included.total_cents, 8000 - 500 + 300);
        charges.tax = Some(Tax {
            rate_hundredths: 1900,
            included: false,
        });
        let added = charges.totals(&tickets);
        assert_eq!(added.tax_cents, 1045 + 29 + 380 + 29);
        assert_eq!(added.total_cents, 8000 - 500 + 300 + added.tax_cents);
        assert_eq!(Charges::default().totals(&tickets).total_cents, 7500);
    }
}
