//! Limits on names and labels that reach the database. The schema's
//! CHECKs say the same numbers (migration V6), so a value the rules accept
//! is never one PostgreSQL refuses: no NUL (text can't hold one), no other
//! control character, and a bounded length (an index entry is bounded too).

/// Event, venue, section, area and tier names.
pub const MAX_NAME_CHARS: usize = 200;
/// A price tier's code.
pub const MAX_CODE_CHARS: usize = 32;
/// Row and seat labels.
pub const MAX_LABEL_CHARS: usize = 16;

/// Whether `value` is one line of visible text of at most `max_chars`
/// characters (spaces allowed; control characters, bidi controls and
/// invisible characters not).
pub fn is_plain(value: &str, max_chars: usize) -> bool {
    value.chars().count() <= max_chars
        && !value.chars().any(char::is_control)
        && !hides_something(value)
}

/// Whether `value` holds a character that changes what a reader sees
/// without being seen itself: a bidi control (U+202E turns "gpj.exe"
/// around), or an invisible one (U+FEFF, U+200B), so a name could pass
/// for another in a staff list. A zero-width joiner or non-joiner between
/// two non-ASCII characters stays allowed: Persian and Indic names and
/// emoji sequences need them, and there they can't disguise Latin text.
pub fn hides_something(value: &str) -> bool {
    let chars: Vec<char> = value.chars().collect();
    chars.iter().enumerate().any(|(at, &c)| match c {
        '\u{200C}' | '\u{200D}' => {
            let visible_non_ascii =
                |c: Option<&char>| c.is_some_and(|c| !c.is_ascii() && !c.is_whitespace());
            !(at > 0
                && visible_non_ascii(chars.get(at - 1))
                && visible_non_ascii(chars.get(at + 1)))
        }
        _ => is_bidi_control(c) || is_invisible(c),
    })
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// What is wrong with `value` as a `what`, in words, or None if nothing.
pub fn problem(what: &str, value: &str, max_chars: usize) -> Option<String> {
    if value.trim().is_empty() {
        Some(format!("{what} is empty"))
    } else if value.chars().any(char::is_control) {
        Some(format!("{what} contains a control character"))
    } else if hides_something(value) {
        Some(format!(
            "{what} contains an invisible or direction-changing character"
        ))
    } else if value.chars().count() > max_chars {
        Some(format!(
            "{what} is {} characters long; at most {max_chars} are allowed",
            value.chars().count()
        ))
    } else {
        None
    }
}

/// A value as it may be quoted back in a message: escaped, and cut short.
pub fn quoted(value: &str) -> String {
    const SHOWN: usize = 40;
    if value.chars().count() <= SHOWN {
        format!("{value:?}")
    } else {
        let start: String = value.chars().take(SHOWN).collect();
        format!("{start:?}…")
    }
}

/// `value` cut to at most `max_chars` characters, marked with "…" where
/// it was cut (for words that quote what a caller sent).
pub fn cut(value: String, max_chars: usize) -> String {
    match value.char_indices().nth(max_chars) {
        None => value,
        Some((end, _)) => {
            let mut cut = value;
            cut.truncate(end);
            cut.push('…');
            cut
        }
    }
}

/// A field quoted in a message without its escapes: cut short.
pub fn shortened(value: &str) -> String {
    const SHOWN: usize = 40;
    if value.chars().count() <= SHOWN {
        value.to_string()
    } else {
        value.chars().take(SHOWN).chain(['…']).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_length_are_refused_and_named() {
        assert!(is_plain("Stalls A", 200));
        assert!(!is_plain("Stal\0ls", 200));
        assert!(!is_plain("tab\there", 200));
        assert!(!is_plain(&"x".repeat(201), 200));
        assert!(is_plain(&"é".repeat(200), 200), "characters, not bytes");
        assert_eq!(problem("row label", "A", 16), None);
        assert!(
            problem("row label", "A\u{7}", 16)
                .unwrap()
                .contains("control")
        );
        assert!(
            problem("row label", &"9".repeat(17), 16)
                .unwrap()
                .contains("at most 16")
        );
        assert!(problem("row label", "  ", 16).unwrap().contains("empty"));
    }

    #[test]
    fn bidi_controls_and_invisible_characters_are_refused() {
        for hidden in [
            "\u{202E}gnirts",
            "ad\u{FEFF}min",
            "ad\u{200B}min",
            "ad\u{200D}min",
            "\u{200C}Ada",
            "Ada\u{2066}",
            "soft\u{AD}hyphen",
            "tag\u{E0041}",
        ] {
            assert!(hides_something(hidden), "{hidden:?}");
            assert!(!is_plain(hidden, 200), "{hidden:?}");
            assert!(problem("name", hidden, 200).unwrap().contains("invisible"));
        }
        // Joiners where scripts and emoji need them.
        for kept in [
            "می\u{200C}خواهم",
            "👩\u{200D}👩\u{200D}👧",
            "क्\u{200D}ष",
            "Zoë Ångström",
        ] {
            assert!(!hides_something(kept), "{kept:?}");
            assert!(is_plain(kept, 200), "{kept:?}");
        }
    }

    #[test]
    fn quoted_values_are_escaped_and_short() {
        assert_eq!(quoted("a\0b"), "\"a\\0b\"");
        assert!(quoted(&"x".repeat(10_000)).len() < 50);
    }
}

/// A text cell for a CSV export that a spreadsheet won't run as a formula:
/// one starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
/// leading apostrophe (OWASP's advice for CSV injection). Buyer names and
/// e-mails are typed by anyone.
pub fn spreadsheet_safe(cell: &str) -> std::borrow::Cow<'_, str> {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{cell}").into(),
        _ => cell.into(),
    }
}

#[cfg(test)]
mod spreadsheet_tests {
    use super::spreadsheet_safe;

    #[test]
    fn cells_a_spreadsheet_would_run_are_defused_and_others_kept() {
        for risky in [
            "=HYPERLINK(\"http://x\")",
            "+1",
            "-2+3",
            "@SUM(A1)",
            "\tx",
            "\r=1",
        ] {
            assert_eq!(spreadsheet_safe(risky), format!("'{risky}"));
        }
        for plain in ["Ada Lovelace", "ada@example.com", "", "1=1", "O'Brien"] {
            assert_eq!(spreadsheet_safe(plain), plain);
        }
    }
}
