//! How an event shows money and time to buyers: in its currency, and in
//! its venue's time zone.

use time::OffsetDateTime;

use crate::domain::lang::Lang;
use crate::domain::money::Currency;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EventLocale {
    pub currency: Currency,
    /// IANA name; an unknown one (or none) shows UTC.
    pub time_zone: String,
    /// The reader's language: how numbers, dates and money are written
    /// (the time zone stays the venue's).
    pub lang: Lang,
}

impl EventLocale {
    pub fn new(currency: Currency, time_zone: impl Into<String>) -> EventLocale {
        EventLocale {
            currency,
            time_zone: time_zone.into(),
            lang: Lang::En,
        }
    }

    /// The same, written for a reader of `lang`.
    pub fn in_lang(self, lang: Lang) -> EventLocale {
        EventLocale { lang, ..self }
    }

    pub fn price(&self, minor: impl Into<i64>) -> String {
        self.currency.format_in(minor.into(), self.lang)
    }

    fn zoned(&self, at: OffsetDateTime) -> jiff::Zoned {
        let zone = jiff::tz::TimeZone::get(&self.time_zone).unwrap_or(jiff::tz::TimeZone::UTC);
        jiff::Timestamp::from_second(at.unix_timestamp())
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned(zone)
    }

    /// "Tue 22 Dec 2026, 20:00 CET"; "Di., 22. Dez. 2026, 20:00 CET".
    pub fn time(&self, at: OffsetDateTime) -> String {
        let zoned = self.zoned(at);
        let date = self.lang.date(
            usize::from(zoned.weekday().to_monday_zero_offset() as u8),
            zoned.day(),
            (zoned.month() - 1) as usize,
            zoned.year(),
        );
        format!("{date}, {}", zoned.strftime("%H:%M %Z"))
    }

    /// "2026-12-22T20:00:00+01:00": the venue's local time with its
    /// offset, for exports.
    pub fn iso(&self, at: OffsetDateTime) -> String {
        self.zoned(at).strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()
    }

    /// "19:02", in the venue's zone: the door's "admitted at".
    /// The venue's UTC offset at `at` (wallet passes print their date
    /// on the venue's clock).
    pub fn offset_at(&self, at: OffsetDateTime) -> time::UtcOffset {
        time::UtcOffset::from_whole_seconds(self.zoned(at).offset().seconds())
            .unwrap_or(time::UtcOffset::UTC)
    }

    pub fn hour_minute(&self, at: OffsetDateTime) -> String {
        self.zoned(at).strftime("%H:%M").to_string()
    }

    /// "20:04:31 CET", for a hold's expiry.
    pub fn clock(&self, at: OffsetDateTime) -> String {
        self.zoned(at).strftime("%H:%M:%S %Z").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn dates_and_money_are_written_in_the_readers_language_in_the_venues_zone() {
        let paris = EventLocale::new(Currency::from_code("EUR").unwrap(), "Europe/Paris");
        let at = datetime!(2026-12-22 19:00 UTC);
        assert_eq!(paris.time(at), "Tue 22 Dec 2026, 20:00 CET");
        let german = paris.clone().in_lang(Lang::De);
        assert_eq!(german.time(at), "Di., 22. Dez. 2026, 20:00 CET");
        assert_eq!(german.price(123_450), "1.234,50\u{a0}€");
        assert_eq!(
            paris.clone().in_lang(Lang::Fr).time(at),
            "mar. 22 déc. 2026, 20:00 CET"
        );
        assert_eq!(
            paris.in_lang(Lang::Es).time(at),
            "mar, 22 dic 2026, 20:00 CET"
        );
    }

    #[test]
    fn the_door_says_hour_and_minute_in_the_venues_zone() {
        let paris = EventLocale::new(Currency::from_code("EUR").unwrap(), "Europe/Paris");
        assert_eq!(
            paris.hour_minute(datetime!(2026-12-22 18:02:59 UTC)),
            "19:02"
        );
    }

    #[test]
    fn export_times_carry_the_venues_offset() {
        let new_york = EventLocale::new(Currency::from_code("USD").unwrap(), "America/New_York");
        assert_eq!(
            new_york.iso(datetime!(2026-12-22 01:30:05 UTC)),
            "2026-12-21T20:30:05-05:00"
        );
        assert_eq!(
            EventLocale::default().iso(datetime!(2026-07-01 00:30 UTC)),
            "2026-07-01T00:30:00+00:00"
        );
    }

    #[test]
    fn times_are_shown_in_the_venues_zone_with_its_daylight_saving() {
        let new_york = EventLocale::new(Currency::from_code("USD").unwrap(), "America/New_York");
        assert_eq!(
            new_york.time(datetime!(2026-12-22 01:30 UTC)),
            "Mon 21 Dec 2026, 20:30 EST"
        );
        assert_eq!(
            new_york.time(datetime!(2026-07-01 00:30 UTC)),
            "Tue 30 Jun 2026, 20:30 EDT"
        );
        assert_eq!(
            new_york.clock(datetime!(2026-12-22 01:30:05 UTC)),
            "20:30:05 EST"
        );
        assert_eq!(new_york.price(1_250_000), "$12,500");
        let nowhere = EventLocale::new(Currency::default(), "Mars/Olympus");
        assert_eq!(
            nowhere.time(datetime!(2026-12-22 01:30 UTC)),
            "Tue 22 Dec 2026, 01:30 UTC"
        );
    }
}
