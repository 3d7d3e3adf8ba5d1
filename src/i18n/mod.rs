//! Buyers' languages: one Fluent file per language (`en.ftl`, `de.ftl`,
//! `fr.ftl`, `es.ftl` beside this file), and the language of the request
//! being served.
//!
//! The language is chosen once per request (`web::lang`: the buyer's
//! choice kept in the session, else Accept-Language) and set for the
//! request's task, so a template, a notice or an error's message asks
//! `current()` instead of having it passed down every call. Work done
//! outside a request (the mailer) sets it from what it serves (an order's
//! language) with `scope`.
//!
//! A message missing from a language falls back to English; a test keeps
//! every language's keys the same, and every key used.

use std::collections::HashMap;
use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};

pub use crate::domain::lang::Lang;

pub mod receipt;

/// Each language's Fluent source, as shipped.
pub const SOURCES: [(Lang, &str); 4] = [
    (Lang::En, include_str!("en.ftl")),
    (Lang::De, include_str!("de.ftl")),
    (Lang::Fr, include_str!("fr.ftl")),
    (Lang::Es, include_str!("es.ftl")),
];

tokio::task_local! {
    static LANG: Lang;
    static BUYER_FACING: bool;
}

/// The language of the request (or job) being served; English outside one.
pub fn current() -> Lang {
    LANG.try_with(|lang| *lang).unwrap_or_default()
}

/// Runs `work` with `lang` as the current language.
pub async fn scope<F: Future>(lang: Lang, work: F) -> F::Output {
    LANG.scope(lang, work).await
}

/// Runs a request's `work` in `lang`; `buyer_facing` says whether its page
/// offers the language switch (staff pages are English for now).
pub async fn request_scope<F: Future>(lang: Lang, buyer_facing: bool, work: F) -> F::Output {
    BUYER_FACING
        .scope(buyer_facing, LANG.scope(lang, work))
        .await
}

/// Whether the page being made offers the language switch.
pub fn offers_switch() -> bool {
    BUYER_FACING.try_with(|yes| *yes).unwrap_or(false)
}

/// Runs `work` now with `lang` as the current language.
pub fn sync_scope<R>(lang: Lang, work: impl FnOnce() -> R) -> R {
    LANG.sync_scope(lang, work)
}

static BUNDLES: LazyLock<HashMap<Lang, FluentBundle<FluentResource>>> = LazyLock::new(|| {
    SOURCES
        .into_iter()
        .map(|(lang, source)| {
            let resource = FluentResource::try_new(source.to_string())
                .unwrap_or_else(|(_, errors)| panic!("{}.ftl: {errors:?}", lang.tag()));
            let mut bundle = FluentBundle::new_concurrent(vec![lang.id()]);
            // Pages are HTML, mail is plain text: no bidi isolation marks.
            bundle.set_use_isolating(false);
            bundle
                .add_resource(resource)
                .unwrap_or_else(|errors| panic!("{}.ftl: {errors:?}", lang.tag()));
            (lang, bundle)
        })
        .collect()
});

/// The message `key` in `lang`, with `args`; English if `lang` lacks it,
/// and the key itself if no language has it (a test keeps that from
/// shipping).
pub fn text_in(lang: Lang, key: &str, args: Option<&FluentArgs>) -> String {
    for lang in [lang, Lang::En] {
        let bundle = &BUNDLES[&lang];
        if let Some(pattern) = bundle.get_message(key).and_then(|m| m.value()) {
            let mut errors = Vec::new();
            let text = bundle.format_pattern(pattern, args, &mut errors);
            if errors.is_empty() {
                return text.into_owned();
            }
            tracing::warn!(key, lang = lang.tag(), ?errors, "a message did not format");
        }
    }
    key.to_string()
}

/// An event's money and times, written for the current reader.
pub fn locale(
    currency: crate::domain::money::Currency,
    time_zone: impl Into<String>,
) -> crate::domain::locale::EventLocale {
    crate::domain::locale::EventLocale::new(currency, time_zone).in_lang(current())
}

/// The message `key` in the current language.
pub fn t(key: &str) -> String {
    text_in(current(), key, None)
}

/// An argument of a message: a number (which picks plural forms) or text.
pub enum Arg<'a> {
    Number(i64),
    Text(&'a str),
}

impl From<i64> for Arg<'_> {
    fn from(n: i64) -> Self {
        Arg::Number(n)
    }
}

impl From<i32> for Arg<'_> {
    fn from(n: i32) -> Self {
        Arg::Number(i64::from(n))
    }
}

impl From<u32> for Arg<'_> {
    fn from(n: u32) -> Self {
        Arg::Number(i64::from(n))
    }
}

impl From<usize> for Arg<'_> {
    fn from(n: usize) -> Self {
        Arg::Number(n as i64)
    }
}

/// Numbers as askama passes them: by reference.
macro_rules! number_args {
    ($($t:ty),*) => {$(
        impl From<&$t> for Arg<'_> {
            fn from(n: &$t) -> Self {
                Arg::Number(*n as i64)
            }
        }
    )*};
}
number_args!(i64, i32, u32, u64, usize);

impl From<u64> for Arg<'_> {
    fn from(n: u64) -> Self {
        Arg::Number(n as i64)
    }
}

impl<'a> From<&&'a String> for Arg<'a> {
    fn from(text: &&'a String) -> Self {
        Arg::Text(text)
    }
}

impl<'a> From<&&'a str> for Arg<'a> {
    fn from(text: &&'a str) -> Self {
        Arg::Text(text)
    }
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(text: &'a str) -> Self {
        Arg::Text(text)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(text: &'a String) -> Self {
        Arg::Text(text)
    }
}

/// The message `key` in the current language, with named arguments.
pub fn tw<'a>(key: &str, args: &[(&str, Arg<'a>)]) -> String {
    let mut fluent = FluentArgs::new();
    for (name, value) in args {
        match value {
            Arg::Number(n) => fluent.set(*name, FluentValue::from(*n)),
            Arg::Text(text) => fluent.set(*name, FluentValue::from(*text)),
        }
    }
    text_in(current(), key, Some(&fluent))
}

/// `tw` with one argument, for templates.
pub fn t1<'a>(key: &str, name: &str, value: impl Into<Arg<'a>>) -> String {
    tw(key, &[(name, value.into())])
}

/// `tw` with two arguments, for templates.
pub fn t2<'a, 'b>(
    key: &str,
    a: &str,
    a_value: impl Into<Arg<'a>>,
    b: &str,
    b_value: impl Into<Arg<'b>>,
) -> String {
    let (a_value, b_value) = (a_value.into(), b_value.into());
    let mut fluent = FluentArgs::new();
    for (name, value) in [(a, &a_value), (b, &b_value)] {
        match value {
            Arg::Number(n) => fluent.set(name, FluentValue::from(*n)),
            Arg::Text(text) => fluent.set(name, FluentValue::from(*text)),
        }
    }
    text_in(current(), key, Some(&fluent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_parses_and_plurals_follow_it() {
        for (lang, _) in SOURCES {
            assert!(BUNDLES.contains_key(&lang));
        }
        let mut args = FluentArgs::new();
        args.set("count", FluentValue::from(1));
        assert_eq!(
            text_in(Lang::En, "notice-released-seats", Some(&args)),
            "Released 1 seat; it is back on sale."
        );
        args.set("count", FluentValue::from(3));
        assert_eq!(
            text_in(Lang::De, "notice-released-seats", Some(&args)),
            "3 Plätze freigegeben; sie sind wieder im Verkauf."
        );
        assert_eq!(text_in(Lang::Fr, "nav-my-orders", None), "Mes commandes");
        assert_eq!(text_in(Lang::Es, "no-such-key", None), "no-such-key");
    }

    /// Every message id of a Fluent source.
    fn ids(source: &str) -> std::collections::BTreeSet<String> {
        let resource = FluentResource::try_new(source.to_string()).expect("parses");
        resource
            .entries()
            .filter_map(|entry| match entry {
                fluent_syntax::ast::Entry::Message(message) => Some(message.id.name.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_language_has_every_message_and_no_other() {
        let english = ids(SOURCES[0].1);
        for (lang, source) in &SOURCES[1..] {
            let theirs = ids(source);
            let missing: Vec<_> = english.difference(&theirs).collect();
            let extra: Vec<_> = theirs.difference(&english).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{}.ftl lacks {missing:?} and has {extra:?} that en.ftl doesn't",
                lang.tag()
            );
        }
    }

    /// Each message's variables (`$count`), by message id, read from the
    /// source: a message runs from its `id =` line to the next one.
    fn variables(
        source: &str,
    ) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
        let mut found = std::collections::BTreeMap::new();
        let mut current: Option<String> = None;
        for line in source.lines() {
            let starts = line
                .split_once(" =")
                .filter(|(id, _)| {
                    !id.is_empty()
                        && id
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                })
                .map(|(id, _)| id.to_string());
            if let Some(id) = starts {
                current = Some(id);
            } else if line.starts_with('#') {
                current = None;
            }
            if let Some(id) = &current {
                let names: &mut std::collections::BTreeSet<String> =
                    found.entry(id.clone()).or_default();
                for (i, _) in line.match_indices('$') {
                    let name: String = line[i + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                        .collect();
                    names.insert(name);
                }
            }
        }
        found
    }

    #[test]
    fn every_language_uses_each_messages_variables_as_english_does() {
        let english = variables(SOURCES[0].1);
        for (lang, source) in &SOURCES[1..] {
            for (id, names) in variables(source) {
                assert_eq!(
                    Some(&names),
                    english.get(&id),
                    "{}.ftl's {id} uses other variables than en.ftl's",
                    lang.tag()
                );
            }
        }
    }

    #[test]
    fn every_message_the_code_asks_for_by_name_exists() {
        let code = code_text();
        let known = ids(SOURCES[0].1);
        let mut missing = Vec::new();
        for call in ["t(\"", "t1(\"", "t2(\"", "tw(\n", "tw(\""] {
            for (i, _) in code.match_indices(call) {
                // `t(` itself, not `get(` or `set(`.
                let before = code[..i].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = code[i + call.len()..].trim_start().trim_start_matches('"');
                let key: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
                    .collect();
                if key.contains('-') && !known.contains(&key) {
                    missing.push(key);
                }
            }
        }
        assert!(
            missing.is_empty(),
            "asked for, but in no language: {missing:?}"
        );
    }

    /// The code that can ask for a message: Rust and templates.
    fn code_text() -> String {
        fn walk(dir: &std::path::Path, out: &mut String) {
            for entry in std::fs::read_dir(dir).expect("readable").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "rs" || e == "html" || e == "txt" || e == "js")
                    // These tests name messages too; they don't count.
                    && !path.ends_with("i18n/mod.rs")
                {
                    out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut text = String::new();
        for dir in ["src", "templates"] {
            walk(&root.join(dir), &mut text);
        }
        text
    }

    #[test]
    fn every_message_is_used_somewhere() {
        let code = code_text();
        let unused: Vec<String> = ids(SOURCES[0].1)
            .into_iter()
            .filter(|id| !code.contains(&format!("\"{id}\"")))
            .collect();
        assert!(unused.is_empty(), "messages nothing asks for: {unused:?}");
    }

    #[test]
    fn the_current_language_is_the_scopes() {
        assert_eq!(current(), Lang::En);
        assert_eq!(
            sync_scope(Lang::De, || t("nav-my-orders")),
            "Meine Bestellungen"
        );
    }
}
