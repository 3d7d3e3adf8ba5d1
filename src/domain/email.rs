//! Which e-mail addresses seatmap takes: the ones it can send to. A
//! purchase and the mailer apply this same rule, so an address a buyer
//! gives is one the mailer will accept (`mail.rs` tests that for lettre,
//! over generated addresses).
//!
//! It is a deliberate subset of what RFC 5321 allows: an ASCII dot-atom
//! before the `@` (no quoted local parts, which hide commas and markup),
//! and after it a host name of at least two labels whose last is letters
//! (so no address literals like `a@127.0.0.1`, which would aim mail at a
//! host rather than a domain). Internationalised domains are written in
//! their `xn--` form.

pub const MAX_CHARS: usize = 254;
const MAX_LOCAL_CHARS: usize = 64;
const MAX_LABEL_CHARS: usize = 63;

/// An address seatmap can send to, checked once when it is read: holding
/// one is proof of that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    /// The address, trimmed, if it is one seatmap can send to.
    pub fn parse(text: &str) -> Option<Email> {
        let address = text.trim();
        if address.len() > MAX_CHARS {
            return None;
        }
        let (local, domain) = address.split_once('@')?;
        (is_local_part(local) && is_domain(domain)).then(|| Email(address.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Email {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~-".contains(c)
}

fn is_local_part(local: &str) -> bool {
    !local.is_empty()
        && local.len() <= MAX_LOCAL_CHARS
        && local
            .split('.')
            .all(|atom| !atom.is_empty() && atom.chars().all(is_atext))
}

fn is_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    let Some(top) = labels.last() else {
        return false;
    };
    domain.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|label| is_label(label))
        && (top.len() >= 2 && top.chars().all(|c| c.is_ascii_alphabetic())
            || top.starts_with("xn--"))
}

fn is_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= MAX_LABEL_CHARS
        && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !label.starts_with('-')
        && !label.ends_with('-')
}

#[cfg(test)]
mod tests {
    use super::Email;

    fn parse(text: &str) -> Option<String> {
        Email::parse(text).map(|email| email.as_str().to_string())
    }

    #[test]
    fn ordinary_addresses_are_taken_trimmed() {
        for ok in [
            "ada@example.com",
            " ada@example.com ",
            "first.last+tag@mail.example.co.uk",
            "o'brien@example.ie",
            "x@xn--bcher-kva.example",
            "a@b.xn--p1ai",
        ] {
            assert_eq!(parse(ok).as_deref(), Some(ok.trim()), "{ok}");
        }
    }

    #[test]
    fn addresses_the_mailer_could_not_send_to_are_refused() {
        for bad in [
            "",
            "not-an-email",
            "a@b",
            "two@@example.com",
            "a@b@example.com",
            "\"a,b\"@example.com",
            "\"<script>\"@example.com",
            "\"a b\"@example.com",
            "a@127.0.0.1",
            "a@[127.0.0.1]",
            "a@example.123",
            "trailing@example.",
            ".dot@example.com",
            "dot.@example.com",
            "do..t@example.com",
            "a@-example.com",
            "a@example-.com",
            "a@exa_mple.com",
            "josé@example.com",
            "a@exämple.com",
            "a b@example.com",
            "a@example.com\u{0}",
            "Ada <ada@example.com>",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
        let long_local = format!("{}@example.com", "x".repeat(65));
        assert_eq!(parse(&long_local), None);
        let long = format!("a@{}.com", "x".repeat(250));
        assert_eq!(parse(&long), None);
    }
}
