//! Tickets as the buyer and the door see them: the code that is the ticket,
//! how a sale was paid, and what a gate is called.

use std::fmt;

use rand::RngCore;

use super::refusal::Invalid;

/// Random bytes in a code: 160 bits, so guessing one of a million live
/// codes takes about 2^140 tries.
const CODE_BYTES: usize = 20;
/// 160 bits in base32, without padding.
pub const CODE_CHARS: usize = 32;

/// A ticket's code: the bearer secret in its QR code. Made from the OS-seeded
/// CSPRNG and nothing else, so it says nothing about ids, order or time.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct TicketCode(String);

impl TicketCode {
    pub fn generate() -> TicketCode {
        let mut bytes = [0u8; CODE_BYTES];
        rand::rng().fill_bytes(&mut bytes);
        TicketCode(data_encoding::BASE32_NOPAD.encode(&bytes))
    }

    /// A code as typed or scanned: case, spaces and dashes don't matter
    /// (the page prints it in groups of four), and a typed zero or one is
    /// read as the letter O or I (the code's alphabet has neither digit,
    /// and a steward reading "O" off a phone types what they see).
    pub fn parse(text: &str) -> Result<TicketCode, Invalid> {
        let code: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .map(|c| match c.to_ascii_uppercase() {
                '0' => 'O',
                '1' => 'I',
                upper => upper,
            })
            .collect();
        let alphabet_only = code
            .bytes()
            .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b));
        if code.len() != CODE_CHARS || !alphabet_only {
            return Err(Invalid::TicketCode);
        }
        Ok(TicketCode(code))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// "ABCD EFGH …": easier to read out and to type.
    pub fn grouped(&self) -> String {
        self.0
            .as_bytes()
            .chunks(4)
            .map(|chunk| std::str::from_utf8(chunk).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl fmt::Display for TicketCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a box-office sale was paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tender {
    Cash,
    Card,
    /// Complimentary: no charge, and the reason is recorded.
    Comp {
        reason: String,
    },
}

impl Tender {
    /// From the form's choice and its comp reason (ignored unless comp).
    pub fn parse(choice: &str, comp_reason: &str) -> Result<Tender, Invalid> {
        let reason = comp_reason.trim();
        match choice.trim() {
            "cash" => Ok(Tender::Cash),
            "card" => Ok(Tender::Card),
            "comp" if super::text::problem("reason", reason, 200).is_none() => Ok(Tender::Comp {
                reason: reason.to_string(),
            }),
            _ => Err(Invalid::Tender),
        }
    }

    /// The `orders.tender` column's value.
    pub fn as_str(&self) -> &'static str {
        match self {
            Tender::Cash => "cash",
            Tender::Card => "card",
            Tender::Comp { .. } => "comp",
        }
    }

    pub fn comp_reason(&self) -> Option<&str> {
        match self {
            Tender::Comp { reason } => Some(reason),
            _ => None,
        }
    }
}

/// The gate a door page scans at ("Gate B"), shown on a second scan.
pub fn gate(text: &str) -> Result<String, Invalid> {
    let gate = text.trim();
    if super::text::problem("gate", gate, 40).is_some() {
        return Err(Invalid::Gate);
    }
    Ok(gate.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_32_base32_characters_and_never_repeat() {
        let codes: std::collections::HashSet<String> =
            (0..10_000).map(|_| TicketCode::generate().0).collect();
        assert_eq!(codes.len(), 10_000);
        for code in codes.iter().take(100) {
            assert_eq!(code.len(), CODE_CHARS);
            assert_eq!(TicketCode::parse(code).unwrap().as_str(), code);
        }
    }

    #[test]
    fn a_typed_code_may_be_grouped_and_lower_case() {
        let code = TicketCode::generate();
        let typed = code.grouped().to_lowercase();
        assert!(typed.contains(' '));
        assert_eq!(TicketCode::parse(&typed).unwrap(), code);
        assert_eq!(
            TicketCode::parse(&code.grouped().replace(' ', "-")).unwrap(),
            code
        );
    }

    #[test]
    fn a_typed_zero_is_the_letter_o_and_a_one_the_letter_i() {
        let code = TicketCode("OIOI".repeat(8));
        let typed = "0i01 o1OI 0101 OIOI 0I0I oioi 0101 OIOI";
        assert_eq!(TicketCode::parse(typed).unwrap(), code);
    }

    #[test]
    fn anything_else_is_not_a_code() {
        let code = TicketCode::generate().0;
        for bad in [
            "",
            "1",
            &code[1..],
            &format!("{code}A"),
            &code.replacen(&code[..1], "8", 1),
            &code.replacen(&code[..1], "é", 1),
            "SELECT * FROM tickets",
        ] {
            assert!(
                matches!(TicketCode::parse(bad), Err(Invalid::TicketCode)),
                "{bad:?} was taken for a code"
            );
        }
    }

    #[test]
    fn a_comp_needs_its_reason_and_other_tenders_ignore_it() {
        assert_eq!(Tender::parse("cash", "ignored").unwrap(), Tender::Cash);
        assert_eq!(Tender::parse("card", "").unwrap(), Tender::Card);
        assert_eq!(
            Tender::parse("comp", " press night ").unwrap(),
            Tender::Comp {
                reason: "press night".into()
            }
        );
        assert!(Tender::parse("comp", "  ").is_err());
        assert!(Tender::parse("cheque", "").is_err());
        assert!(Tender::parse("comp", &"x".repeat(201)).is_err());
    }

    #[test]
    fn a_gate_is_short_plain_text() {
        assert_eq!(gate(" Gate B ").unwrap(), "Gate B");
        assert!(gate("").is_err());
        assert!(gate(&"g".repeat(41)).is_err());
        assert!(gate("Gate\u{0}B").is_err());
    }
}
