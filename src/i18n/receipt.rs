//! A receipt's lines in the current language: what the order page and the
//! confirmation e-mail show beneath the tickets.

use crate::domain::charges::{Tax, Totals};
use crate::domain::lang::Lang;
use crate::domain::locale::EventLocale;

/// One line: what it is, and the amount as the event writes money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptLine {
    pub label: String,
    pub amount: String,
    /// The total: shown strongest.
    pub total: bool,
}

/// The lines of a receipt: tickets, discount (with its code), booking fees,
/// the tax line, the total, and what refunds paid back. A line that would
/// say zero is left out, except the total.
pub fn lines(
    totals: &Totals,
    tax: Option<Tax>,
    promo_code: Option<&str>,
    refunded_cents: i64,
    locale: &EventLocale,
) -> Vec<ReceiptLine> {
    let line = |label: String, cents: i64| ReceiptLine {
        label,
        amount: locale.price(cents),
        total: false,
    };
    let mut lines = vec![line(super::t("receipt-tickets"), totals.subtotal_cents)];
    if totals.discount_cents > 0 {
        let mut discount = line(
            super::t1("receipt-discount", "code", promo_code.unwrap_or("")),
            totals.discount_cents,
        );
        discount.amount = format!("−{}", discount.amount);
        lines.push(discount);
    }
    if totals.fees_cents > 0 {
        lines.push(line(super::t("receipt-fees"), totals.fees_cents));
    }
    if let Some(tax) = tax {
        lines.push(line(tax_label(tax), totals.tax_cents));
    }
    lines.push(ReceiptLine {
        total: true,
        ..line(super::t("receipt-total"), totals.total_cents)
    });
    if refunded_cents > 0 {
        let mut refunded = line(super::t("receipt-refunded"), refunded_cents);
        refunded.amount = format!("−{}", refunded.amount);
        lines.push(refunded);
    }
    lines
}

/// "Including VAT 19 %" (the prices contain it) or "Tax 8.5 %" (added).
pub fn tax_label(tax: Tax) -> String {
    let rate = rate_in(tax, super::current());
    let key = match tax.included {
        true => "receipt-tax-included",
        false => "receipt-tax-added",
    };
    super::t1(key, "rate", rate.as_str())
}

/// "7.5" in English, "7,5" where a comma is the decimal mark.
fn rate_in(tax: Tax, lang: Lang) -> String {
    let rate = tax.rate_text();
    match lang {
        Lang::En => rate,
        _ => rate.replace('.', ","),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Currency;

    #[test]
    fn a_receipt_names_each_part_and_leaves_out_what_is_zero() {
        let locale = EventLocale::new(Currency::from_code("EUR").unwrap(), "Europe/Berlin");
        let totals = Totals {
            subtotal_cents: 8000,
            discount_cents: 500,
            fees_cents: 300,
            tax_cents: 1245,
            total_cents: 7800,
        };
        let vat = Some(Tax {
            rate_hundredths: 750,
            included: true,
        });
        let shown = crate::i18n::sync_scope(Lang::De, || {
            lines(&totals, vat, Some("SPRING20"), 0, &locale)
        });
        let labels: Vec<&str> = shown.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels.len(), 5, "{labels:?}");
        assert!(labels[1].contains("SPRING20"), "{labels:?}");
        assert!(labels[3].contains("7,5"), "{labels:?}");
        assert!(shown[4].total);
        let plain = lines(
            &Totals {
                subtotal_cents: 5500,
                total_cents: 5500,
                ..Totals::default()
            },
            None,
            None,
            0,
            &locale,
        );
        assert_eq!(plain.len(), 2, "{plain:?}");
    }
}
