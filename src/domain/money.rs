//! Prices: amounts are kept in a currency's minor unit (cents for EUR and
//! USD, yen for JPY: `price_cents` in the database means that unit).

/// An event's currency (ISO 4217), which knows its symbol and how many
/// digits its minor unit has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Currency(iso_currency::Currency);

impl serde::Serialize for Currency {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.code())
    }
}

impl Default for Currency {
    fn default() -> Currency {
        Currency(iso_currency::Currency::EUR)
    }
}

impl Currency {
    /// What a venue in `zone` most likely sells in: its country's regular
    /// currency (USD for America/New_York, GBP for Europe/London); None
    /// for a zone that names no country (UTC, Etc/GMT+5) or an unknown one.
    pub fn of_zone(zone: &str) -> Option<Currency> {
        let country: iso_currency::Country = super::local_time::zone_country(zone)?.parse().ok()?;
        iso_currency::Currency::from_country(country)
            .into_iter()
            .find(|currency| currency.flags().is_empty())
            .map(Currency)
    }

    /// "USD", "eur" → the currency; None for anything not in ISO 4217.
    pub fn from_code(code: &str) -> Option<Currency> {
        iso_currency::Currency::from_code(&code.trim().to_ascii_uppercase()).map(Currency)
    }

    pub fn code(self) -> String {
        self.0.code().to_string()
    }

    /// Minor-unit digits: 2 for EUR, 0 for JPY, 3 for KWD. Currencies
    /// without one (gold, test codes) count as 2.
    fn digits(self) -> u32 {
        u32::from(self.0.exponent().unwrap_or(2))
    }

    /// "€", "$", "£", "¥"; the code itself ("CHF") where the symbol is
    /// just letters, which then stands apart from the number.
    fn symbol(self) -> String {
        let symbol = self.0.symbol().to_string();
        if symbol.chars().all(|c| c.is_ascii_alphabetic()) {
            format!("{} ", self.0.code())
        } else {
            symbol
        }
    }

    /// An amount for machines and spreadsheets: "12.50", "-3.05", "4500"
    /// for a currency without cents; no symbol, no grouping.
    pub fn decimal(self, minor: i64) -> String {
        let sign = if minor < 0 { "-" } else { "" };
        let minor = minor.unsigned_abs();
        let width = self.digits() as usize;
        let unit = 10u64.pow(self.digits());
        match width {
            0 => format!("{sign}{minor}"),
            _ => format!("{sign}{}.{:0width$}", minor / unit, minor % unit),
        }
    }

    /// Formats an amount for people: "€45" when whole, "€45.50" otherwise,
    /// thousands grouped ("$1,250"), "¥4,500" for a currency without cents.
    pub fn format(self, minor: i64) -> String {
        let sign = if minor < 0 { "-" } else { "" };
        let minor = minor.unsigned_abs();
        let unit = 10u64.pow(self.digits());
        let whole = group_thousands(minor / unit);
        let symbol = self.symbol();
        if minor.is_multiple_of(unit) {
            format!("{sign}{symbol}{whole}")
        } else {
            let width = self.digits() as usize;
            format!("{sign}{symbol}{whole}.{:0width$}", minor % unit)
        }
    }

    /// An amount as a buyer reading `lang` writes it: "€1,234.50" in
    /// English, "1.234,50 €" in German, "1 234,50 €" in French, "1234,50 €"
    /// in Spanish (a no-break space before the symbol, CLDR's spacing).
    /// Whole amounts drop their cents, as `format` does.
    pub fn format_in(self, minor: i64, lang: super::lang::Lang) -> String {
        if lang == super::lang::Lang::En {
            return self.format(minor);
        }
        let style = lang.numbers();
        let sign = if minor < 0 { "-" } else { "" };
        let minor = minor.unsigned_abs();
        let unit = 10u64.pow(self.digits());
        let whole = style.group(minor / unit);
        let number = if minor.is_multiple_of(unit) {
            whole
        } else {
            let width = self.digits() as usize;
            format!("{whole}{}{:0width$}", style.decimal, minor % unit)
        };
        let symbol = self.symbol();
        format!("{sign}{number}\u{a0}{}", symbol.trim_end())
    }

    /// Reads a price as people type it ("45", "45.5", "€45.50") into the
    /// minor unit; None for anything else, negatives, more decimals than the
    /// currency has, or over [`MAX_PRICE_CENTS`].
    pub fn parse(self, text: &str) -> Option<i32> {
        let text = text
            .trim()
            .trim_start_matches(|c: char| !c.is_ascii_digit() && !matches!(c, '.' | '-' | '+'))
            .trim();
        let digits = self.digits() as usize;
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if fraction.len() > digits || !fraction.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let unit = 10i64.pow(digits as u32);
        let whole: i64 = whole.parse().ok()?;
        let fraction: i64 = if digits == 0 {
            0
        } else {
            format!("{fraction:0<digits$}").parse().ok()?
        };
        let minor = whole.checked_mul(unit)?.checked_add(fraction)?;
        price_cents(minor)
    }
}

/// The most any one amount of money may be, in minor units: a price, a
/// fee, a discount, a waiting party's highest price (a million in a
/// two-decimal currency, far past any seat). Ten tickets at it, with tax,
/// still sum well inside the bigint sums reports use.
pub const MAX_PRICE_CENTS: i64 = 100_000_000;

/// An amount of money in minor units, if from 0 to [`MAX_PRICE_CENTS`].
pub fn price_cents(cents: i64) -> Option<i32> {
    (0..=MAX_PRICE_CENTS)
        .contains(&cents)
        .then_some(cents as i32)
}

/// "20000" → "20,000".
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::{Currency, group_thousands};

    #[test]
    fn a_venues_zone_gives_its_countrys_currency() {
        let code = |zone: &str| Currency::of_zone(zone).map(Currency::code);
        assert_eq!(code("America/New_York").as_deref(), Some("USD"));
        assert_eq!(code("Europe/London").as_deref(), Some("GBP"));
        assert_eq!(code("Europe/Berlin").as_deref(), Some("EUR"));
        assert_eq!(code("Asia/Tokyo").as_deref(), Some("JPY"));
        assert_eq!(code("Europe/Zurich").as_deref(), Some("CHF"));
        assert_eq!(code("UTC"), None);
        assert_eq!(code("Etc/GMT+5"), None);
        assert_eq!(code("Nowhere/At_All"), None);
    }

    #[test]
    fn decimal_amounts_keep_the_currencys_digits() {
        let eur = Currency::from_code("EUR").unwrap();
        assert_eq!(eur.decimal(1250), "12.50");
        assert_eq!(eur.decimal(-305), "-3.05");
        assert_eq!(eur.decimal(7), "0.07");
        assert_eq!(Currency::from_code("JPY").unwrap().decimal(4500), "4500");
        assert_eq!(Currency::from_code("KWD").unwrap().decimal(12345), "12.345");
    }

    fn format_cents(cents: i64) -> String {
        Currency::default().format(cents)
    }

    fn parse_cents(text: &str) -> Option<i32> {
        Currency::default().parse(text)
    }

    #[test]
    fn amounts_are_written_as_each_language_writes_them() {
        use crate::domain::lang::Lang;
        let eur = Currency::from_code("EUR").unwrap();
        assert_eq!(eur.format_in(123_450, Lang::En), "€1,234.50");
        assert_eq!(eur.format_in(123_450, Lang::De), "1.234,50\u{a0}€");
        assert_eq!(eur.format_in(123_450, Lang::Fr), "1\u{202f}234,50\u{a0}€");
        assert_eq!(eur.format_in(123_450, Lang::Es), "1234,50\u{a0}€");
        assert_eq!(eur.format_in(1_234_500, Lang::Es), "12.345\u{a0}€");
        assert_eq!(eur.format_in(4_500, Lang::De), "45\u{a0}€");
        assert_eq!(
            Currency::from_code("SEK")
                .unwrap()
                .format_in(4_550, Lang::De),
            "45,50\u{a0}SEK"
        );
    }

    #[test]
    fn each_currency_has_its_symbol_and_decimals() {
        let usd = Currency::from_code("usd").unwrap();
        assert_eq!(usd.format(1_250_050), "$12,500.50");
        assert_eq!(Currency::from_code("GBP").unwrap().format(4500), "£45");
        let yen = Currency::from_code("JPY").unwrap();
        assert_eq!(yen.format(4500), "¥4,500");
        assert_eq!(yen.parse("4500"), Some(4500));
        assert_eq!(yen.parse("45.5"), None, "yen have no decimals");
        let dinar = Currency::from_code("KWD").unwrap();
        assert!(dinar.format(1_005).ends_with("1.005"), "three decimals");
        assert_eq!(dinar.parse("1.5"), Some(1_500));
        assert_eq!(
            Currency::from_code("SEK").unwrap().format(990),
            "SEK 9.90",
            "a symbol of letters gives way to the code"
        );
        assert_eq!(usd.parse("$45.50"), Some(4550));
        assert!(Currency::from_code("EURO").is_none());
        assert!(Currency::from_code("XYZ").is_none());
    }

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
