/// Formats a price for people: "€45" for whole euros, "€45.50" otherwise,
/// with thousands grouped ("€1,250").
pub fn format_cents(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    let euros = group_thousands(cents / 100);
    if cents % 100 == 0 {
        format!("{sign}€{euros}")
    } else {
        format!("{sign}€{euros}.{:02}", cents % 100)
    }
}

/// "20000" → "20,000".
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// Reads a price as people type it ("45", "45.5", "€45.50") into cents;
/// None for anything else, negatives, or over €1,000,000.
pub fn parse_cents(text: &str) -> Option<i32> {
    let text = text.trim().trim_start_matches('€').trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if fraction.len() > 2 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let fraction: i64 = format!("{fraction:0<2}").parse().ok()?;
    let cents = whole.checked_mul(100)?.checked_add(fraction)?;
    (cents <= 100_000_000).then_some(cents as i32)
}

#[cfg(test)]
mod tests {
    use super::{format_cents, group_thousands, parse_cents};

    #[test]
    fn groups_thousands() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
        assert_eq!(group_thousands(20000), "20,000");
        assert_eq!(group_thousands(1234567), "1,234,567");
        assert_eq!(format_cents(125_050), "€1,250.50");
        assert_eq!(format_cents(-10_000_000), "-€100,000");
    }

    #[test]
    fn reads_prices_as_typed() {
        assert_eq!(parse_cents("45"), Some(4500));
        assert_eq!(parse_cents(" €45.5 "), Some(4550));
        assert_eq!(parse_cents("0.05"), Some(5));
        assert_eq!(parse_cents("0"), Some(0));
        for bad in [
            "",
            "-3",
            "4.567",
            "abc",
            "1e3",
            ".5x",
            "99999999999999999999",
        ] {
            assert_eq!(parse_cents(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn formats_whole_and_fractional_amounts() {
        assert_eq!(format_cents(4500), "€45");
        assert_eq!(format_cents(4550), "€45.50");
        assert_eq!(format_cents(5), "€0.05");
        assert_eq!(format_cents(0), "€0");
        assert_eq!(format_cents(-250), "-€2.50");
    }
}
