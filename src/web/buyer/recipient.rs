//! Who a ticket is passed on to, as a form or a body names them: the
//! buyer's transfer and staff's read it alike.

use serde::Deserialize;

use crate::domain::lang::Lang;
use crate::domain::rules::{self as input_rules, BuyerDetails};
use crate::error::{AppError, AppResult, Invalid};

/// Who a ticket goes to, from a form or a body: a name, an address, and
/// the language their mail is written in (`lang`, a tag; empty or absent
/// is the sender's own).
pub(crate) fn recipient(name: &str, email: &str, lang: Option<&str>) -> AppResult<BuyerDetails> {
    let lang = match lang.map(str::trim).filter(|tag| !tag.is_empty()) {
        None => crate::i18n::current(),
        Some(tag) => Lang::from_tag(tag).ok_or(AppError::Invalid(Invalid::Language))?,
    };
    Ok(input_rules::buyer_details(name, email, lang)?)
}

/// The languages a passed-on ticket's mail can be written in, for a form:
/// (tag, name), the sender's own first.
pub(crate) fn languages() -> Vec<(&'static str, &'static str)> {
    let own = crate::i18n::current();
    std::iter::once(own)
        .chain(Lang::ALL.into_iter().filter(|lang| *lang != own))
        .map(|lang| (lang.tag(), lang.name()))
        .collect()
}

/// Who a ticket goes to, as the holder's and staff's transfer APIs take it.
#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct TransferBody {
    /// The new holder's name, as the ticket and the door will show it.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200, pattern = "\\S")]
    name: String,
    /// Where their ticket is mailed.
    #[serde(default)]
    #[schema(
        max_length = 254,
        pattern = "^[^@\\s]{1,64}@([^@\\s.]{1,63}\\.)+[^@\\s.]{2,63}$"
    )]
    email: String,
    /// Their mail's language: "en", "de", "fr" or "es" (default: the
    /// request's).
    #[serde(default)]
    #[schema(pattern = "^(en|de|fr|es)$")]
    lang: Option<String>,
}

impl TransferBody {
    pub(crate) fn recipient(&self) -> AppResult<BuyerDetails> {
        recipient(&self.name, &self.email, self.lang.as_deref())
    }
}
