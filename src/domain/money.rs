/// Formats a price for people: "€45" for whole euros, "€45.50" otherwise.
pub fn format_cents(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    if cents % 100 == 0 {
        format!("{sign}€{}", cents / 100)
    } else {
        format!("{sign}€{}.{:02}", cents / 100, cents % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::format_cents;

    #[test]
    fn formats_whole_and_fractional_amounts() {
        assert_eq!(format_cents(4500), "€45");
        assert_eq!(format_cents(4550), "€45.50");
        assert_eq!(format_cents(5), "€0.05");
        assert_eq!(format_cents(0), "€0");
        assert_eq!(format_cents(-250), "-€2.50");
    }
}
