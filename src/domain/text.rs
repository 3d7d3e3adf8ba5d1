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
/// characters (spaces allowed, control characters not).
pub fn is_plain(value: &str, max_chars: usize) -> bool {
    value.chars().count() <= max_chars && !value.chars().any(char::is_control)
}

/// What is wrong with `value` as a `what`, in words, or None if nothing.
pub fn problem(what: &str, value: &str, max_chars: usize) -> Option<String> {
    if value.trim().is_empty() {
        Some(format!("{what} is empty"))
    } else if value.chars().any(char::is_control) {
        Some(format!("{what} contains a control character"))
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
