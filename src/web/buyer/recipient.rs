//! Who a ticket is passed on to, as a form or a body names them: the
//! buyer's transfer and staff's read it alike.

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
