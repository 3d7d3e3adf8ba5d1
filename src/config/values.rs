//! Reading one value from the environment, and the type that keeps a
//! secret one out of logs.

use std::fmt;
use std::str::FromStr;

use anyhow::Context;

/// A string that never appears in logs or `Debug` output (it may hold a password).
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

pub(super) fn flag(get: &impl Fn(&str) -> Option<String>, name: &str) -> bool {
    get(name).is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
}

pub(super) fn parse<T>(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
    default: T,
) -> anyhow::Result<T>
where
    T: FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    match get(name) {
        Some(raw) => raw
            .trim()
            .parse()
            .with_context(|| format!("{name}={raw:?} is not valid")),
        None => Ok(default),
    }
}

pub(super) fn parse_in<T>(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
    default: T,
    range: std::ops::RangeInclusive<T>,
) -> anyhow::Result<T>
where
    T: FromStr + PartialOrd + fmt::Display,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let value = parse(get, name, default)?;
    anyhow::ensure!(
        range.contains(&value),
        "{name}={value} is out of range ({}..={})",
        range.start(),
        range.end()
    );
    Ok(value)
}
