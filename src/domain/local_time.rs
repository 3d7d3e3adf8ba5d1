//! Times staff type for an event are wall-clock times at the venue: "19:30"
//! means half past seven where the show is, whatever zone the server or
//! the browser is in. They are stored as instants. A wall-clock time the
//! venue's zone skips (clocks going forward) names no instant, and one it
//! passes twice (clocks going back) names two: both are refused, saying
//! why, rather than guessed. A time written with its offset ("…+01:00",
//! "…Z") is an instant already and is taken as it is.

use time::OffsetDateTime;

use super::refusal::{Invalid, TimeField};

/// Each IANA zone's country (ISO 3166 alpha-2), one per line, tab
/// separated: the tz database's zone.tab (public domain; tzdata 2025b),
/// without its comments.
const ZONE_COUNTRIES: &str = include_str!("zone_countries.tsv");

/// The country (ISO 3166 alpha-2) a zone is in, if it names one.
pub fn zone_country(zone: &str) -> Option<&'static str> {
    ZONE_COUNTRIES
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .find(|(_, name)| *name == zone)
        .map(|(country, _)| country)
}

/// The zones a venue is offered, sorted: every zone of a place, and UTC.
pub fn venue_zones() -> Vec<&'static str> {
    let mut zones: Vec<&'static str> = ZONE_COUNTRIES
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(_, name)| name)
        .collect();
    zones.push("UTC");
    zones.sort_unstable();
    zones
}

/// The instant `text` names at the venue in `zone` (an IANA name; an
/// unknown one is UTC, as the venue's pages show it).
pub fn instant(field: TimeField, text: &str, zone: &str) -> Result<OffsetDateTime, Invalid> {
    let text = text.trim();
    let not_a_time = || Invalid::Time {
        field,
        text: text.to_string(),
    };
    if let Ok(at) = OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339) {
        return Ok(at);
    }
    // Only a date and a time to the minute or second, as a datetime-local
    // field sends it: no offset (one without seconds is not RFC 3339, and
    // would otherwise be dropped unread) and a four-digit year.
    let minutes = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]");
    let seconds =
        time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    let typed = time::PrimitiveDateTime::parse(text, minutes)
        .or_else(|_| time::PrimitiveDateTime::parse(text, seconds))
        .map_err(|_| not_a_time())?;
    let civil = jiff::civil::DateTime::new(
        i16::try_from(typed.year()).map_err(|_| not_a_time())?,
        typed.month() as i8,
        typed.day() as i8,
        typed.hour() as i8,
        typed.minute() as i8,
        typed.second() as i8,
        0,
    )
    .map_err(|_| not_a_time())?;
    let tz = jiff::tz::TimeZone::get(zone).unwrap_or(jiff::tz::TimeZone::UTC);
    let ambiguous = tz.to_ambiguous_timestamp(civil);
    let timestamp = match ambiguous.offset() {
        jiff::tz::AmbiguousOffset::Unambiguous { offset } => civil
            .to_zoned(jiff::tz::TimeZone::fixed(offset))
            .map_err(|_| not_a_time())?
            .timestamp(),
        jiff::tz::AmbiguousOffset::Gap { before, after } => {
            return Err(Invalid::LocalTimeSkipped {
                field,
                text: text.to_string(),
                zone: zone.to_string(),
                offsets: (before.to_string(), after.to_string()),
            });
        }
        jiff::tz::AmbiguousOffset::Fold { before, after } => {
            return Err(Invalid::LocalTimeTwice {
                field,
                text: text.to_string(),
                zone: zone.to_string(),
                offsets: (before.to_string(), after.to_string()),
            });
        }
    };
    OffsetDateTime::from_unix_timestamp_nanos(timestamp.as_nanosecond()).map_err(|_| not_a_time())
}

/// The instant as the venue's wall clock shows it, in the form a
/// `datetime-local` field takes ("2026-12-01T19:30").
pub fn wall_clock(at: OffsetDateTime, zone: &str) -> String {
    let tz = jiff::tz::TimeZone::get(zone).unwrap_or(jiff::tz::TimeZone::UTC);
    jiff::Timestamp::from_second(at.unix_timestamp())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_zoned(tz)
        .strftime("%Y-%m-%dT%H:%M")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn a_wall_clock_time_is_read_in_the_venues_zone() {
        let berlin = instant(TimeField::Start, "2026-12-01T19:30", "Europe/Berlin").unwrap();
        assert_eq!(berlin, datetime!(2026-12-01 18:30 UTC));
        let summer = instant(TimeField::Start, "2027-07-01T19:30:00", "Europe/Berlin").unwrap();
        assert_eq!(summer, datetime!(2027-07-01 17:30 UTC));
        let new_york = instant(TimeField::OnSale, "2026-12-01T19:30", "America/New_York").unwrap();
        assert_eq!(new_york, datetime!(2026-12-02 00:30 UTC));
        assert_eq!(wall_clock(new_york, "America/New_York"), "2026-12-01T19:30");
        assert_eq!(
            instant(TimeField::Start, "2026-12-01T19:30", "No/Such_Zone").unwrap(),
            datetime!(2026-12-01 19:30 UTC)
        );
    }

    #[test]
    fn a_venue_may_be_in_any_zone_of_a_place_or_utc() {
        let zones = venue_zones();
        assert!(zones.contains(&"Europe/Berlin") && zones.contains(&"America/New_York"));
        assert!(zones.contains(&"UTC"));
        assert!(
            zones.windows(2).all(|pair| pair[0] < pair[1]),
            "sorted, once each"
        );
        assert!(
            zones
                .iter()
                .all(|zone| jiff::tz::TimeZone::get(zone).is_ok())
        );
        assert_eq!(zone_country("Asia/Tokyo"), Some("JP"));
    }

    #[test]
    fn a_time_with_its_offset_is_an_instant_already() {
        let at = instant(
            TimeField::Start,
            "2026-12-01T19:30:00+01:00",
            "America/New_York",
        );
        assert_eq!(at.unwrap(), datetime!(2026-12-01 18:30 UTC));
        let at = instant(TimeField::Start, "2026-12-01T19:30:00Z", "Europe/Berlin");
        assert_eq!(at.unwrap(), datetime!(2026-12-01 19:30 UTC));
    }

    #[test]
    fn a_skipped_or_doubled_wall_clock_time_is_refused_saying_which() {
        // Berlin's clocks go forward at 02:00 on 28 March 2027 and back
        // at 03:00 on 31 October 2027.
        match instant(TimeField::Start, "2027-03-28T02:30", "Europe/Berlin") {
            Err(Invalid::LocalTimeSkipped { zone, offsets, .. }) => {
                assert_eq!(zone, "Europe/Berlin");
                assert_eq!(offsets, ("+01".to_string(), "+02".to_string()));
            }
            other => panic!("{other:?}"),
        }
        match instant(TimeField::OnSale, "2027-10-31T02:30", "Europe/Berlin") {
            Err(Invalid::LocalTimeTwice { field, offsets, .. }) => {
                assert_eq!(field, TimeField::OnSale);
                assert_eq!(offsets, ("+02".to_string(), "+01".to_string()));
            }
            other => panic!("{other:?}"),
        }
        // Either of the two, given with its offset, is taken.
        let second = instant(
            TimeField::Start,
            "2027-10-31T02:30:00+01:00",
            "Europe/Berlin",
        );
        assert_eq!(second.unwrap(), datetime!(2027-10-31 01:30 UTC));
    }

    #[test]
    fn what_is_not_a_date_and_time_is_refused() {
        for text in [
            "tomorrow",
            "2026-12-01",
            "19:30",
            "2026-13-01T19:30",
            "",
            // An offset without seconds is not RFC 3339: refused, not
            // read as the venue's wall clock with the offset dropped.
            "2027-03-01T19:30+01:00",
            "2027-03-01T19:30:00[Europe/Paris]",
            "-005000-01-01T00:00",
        ] {
            assert!(
                matches!(
                    instant(TimeField::Start, text, "UTC"),
                    Err(Invalid::Time { .. })
                ),
                "{text:?}"
            );
        }
    }
}
