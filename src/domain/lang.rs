//! The languages buyers are served in, how one is chosen from a request's
//! Accept-Language, and the parts of numbers and dates that differ by
//! language (CLDR's, for these four).

use unic_langid::{LanguageIdentifier, langid};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    #[default]
    En,
    De,
    Fr,
    Es,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::En, Lang::De, Lang::Fr, Lang::Es];

    /// The BCP 47 tag: "en", "de", …
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Es => "es",
        }
    }

    pub fn id(self) -> LanguageIdentifier {
        match self {
            Lang::En => langid!("en"),
            Lang::De => langid!("de"),
            Lang::Fr => langid!("fr"),
            Lang::Es => langid!("es"),
        }
    }

    /// What the language calls itself, for the switcher.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::De => "Deutsch",
            Lang::Fr => "Français",
            Lang::Es => "Español",
        }
    }

    pub fn from_tag(tag: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|lang| lang.tag() == tag)
    }

    /// The best of ours for an Accept-Language header ("de-CH,de;q=0.9,en;q=0.8"),
    /// by Fluent's own negotiation; English if none fits.
    pub fn negotiate(accept_language: &str) -> Lang {
        // Fluent's parser keeps the list's order and drops the weights: sort
        // by weight first (stably, so equal weights keep their order), and
        // leave out what is refused (q=0).
        let mut weighted: Vec<(&str, f32)> = accept_language
            .split(',')
            .filter_map(|part| {
                let mut pieces = part.split(';');
                let tag = pieces.next()?.trim();
                let q = pieces
                    .filter_map(|p| p.trim().strip_prefix("q="))
                    .find_map(|q| q.trim().parse::<f32>().ok())
                    .unwrap_or(1.0);
                (!tag.is_empty() && q.is_finite() && q > 0.0).then_some((tag, q))
            })
            .collect();
        weighted.sort_by(|a, b| b.1.total_cmp(&a.1));
        let ordered: Vec<&str> = weighted.iter().map(|(tag, _)| *tag).collect();
        let requested = fluent_langneg::accepted_languages::parse(&ordered.join(","));
        let available: Vec<LanguageIdentifier> = Lang::ALL.iter().map(|l| l.id()).collect();
        let default = Lang::En.id();
        let chosen = fluent_langneg::negotiate_languages(
            &requested,
            &available,
            Some(&default),
            fluent_langneg::NegotiationStrategy::Lookup,
        );
        chosen
            .first()
            .and_then(|id| Lang::from_tag(id.language.as_str()))
            .unwrap_or_default()
    }

    /// How a number's parts are written.
    pub fn numbers(self) -> NumberStyle {
        match self {
            Lang::En => NumberStyle {
                decimal: ".",
                group: ",",
                min_grouping: 1,
            },
            Lang::De => NumberStyle {
                decimal: ",",
                group: ".",
                min_grouping: 1,
            },
            // A narrow no-break space, as CLDR has it.
            Lang::Fr => NumberStyle {
                decimal: ",",
                group: "\u{202f}",
                min_grouping: 1,
            },
            // Spanish groups only from five digits: 1234 but 12.345.
            Lang::Es => NumberStyle {
                decimal: ",",
                group: ".",
                min_grouping: 2,
            },
        }
    }

    /// Whether a currency's symbol goes after the amount ("45,00 €").
    pub fn symbol_after(self) -> bool {
        !matches!(self, Lang::En)
    }

    /// Abbreviated weekday names, Monday first (CLDR's "abbreviated").
    pub fn weekdays(self) -> [&'static str; 7] {
        match self {
            Lang::En => ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
            Lang::De => ["Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So."],
            Lang::Fr => ["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."],
            Lang::Es => ["lun", "mar", "mié", "jue", "vie", "sáb", "dom"],
        }
    }

    /// Abbreviated month names, January first.
    pub fn months(self) -> [&'static str; 12] {
        match self {
            Lang::En => [
                "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
            ],
            Lang::De => [
                "Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.",
                "Nov.", "Dez.",
            ],
            Lang::Fr => [
                "janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.",
                "nov.", "déc.",
            ],
            Lang::Es => [
                "ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic",
            ],
        }
    }

    /// A day and date in words: "Tue 22 Dec 2026", "Di., 22. Dez. 2026".
    pub fn date(self, weekday: usize, day: i8, month: usize, year: i16) -> String {
        let (w, m) = (self.weekdays()[weekday], self.months()[month]);
        match self {
            Lang::En => format!("{w} {day} {m} {year}"),
            Lang::De => format!("{w}, {day}. {m} {year}"),
            Lang::Fr => format!("{w} {day} {m} {year}"),
            Lang::Es => format!("{w}, {day} {m} {year}"),
        }
    }
}

/// How one language writes a number's parts.
#[derive(Debug, Clone, Copy)]
pub struct NumberStyle {
    pub decimal: &'static str,
    pub group: &'static str,
    /// Digits before the first group separator must number more than 3 by
    /// at least this many minus one (CLDR's minimumGroupingDigits).
    pub min_grouping: usize,
}

impl NumberStyle {
    /// A whole number with its groups: 1,234 / 1.234 / 1 234 / 1234.
    pub fn group(&self, n: u64) -> String {
        let digits = n.to_string();
        if digits.len() < 3 + self.min_grouping {
            return digits;
        }
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push_str(self.group);
            }
            out.push(c);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_best_of_ours_and_falls_back_to_english() {
        assert_eq!(Lang::negotiate("de-CH,de;q=0.9,en;q=0.8"), Lang::De);
        assert_eq!(Lang::negotiate("fr-FR"), Lang::Fr);
        assert_eq!(Lang::negotiate("pt-BR,es;q=0.5"), Lang::Es);
        assert_eq!(Lang::negotiate("ja"), Lang::En);
        assert_eq!(Lang::negotiate(""), Lang::En);
        assert_eq!(Lang::negotiate("\u{0}garbage;;q=x"), Lang::En);
        // Weights, not order, decide; q=0 refuses.
        assert_eq!(Lang::negotiate("en;q=0.1,de;q=0.9"), Lang::De);
        assert_eq!(Lang::negotiate("fr;q=0,es"), Lang::Es);
    }

    #[test]
    fn numbers_group_as_each_language_does() {
        assert_eq!(Lang::En.numbers().group(1_234_567), "1,234,567");
        assert_eq!(Lang::De.numbers().group(1_234), "1.234");
        assert_eq!(Lang::Fr.numbers().group(1_234), "1\u{202f}234");
        assert_eq!(Lang::Es.numbers().group(1_234), "1234");
        assert_eq!(Lang::Es.numbers().group(12_345), "12.345");
        assert_eq!(Lang::En.numbers().group(999), "999");
    }
}
