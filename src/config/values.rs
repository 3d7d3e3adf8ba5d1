//! The kinds of setting the table is made of, how each reads its one
//! variable, and the type that keeps a secret one out of logs.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::time::Duration;

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

/// What the docs' table says of a setting, as the setting itself says it;
/// the docs test holds the two together.
pub trait Described {
    fn name(&self) -> &'static str;
    /// The default column: `` `480` ``, off, or unset.
    fn default_text(&self) -> String;
    /// The accepts column: `1..86400`, 0 or more, or the entry's own words.
    fn accepts(&self) -> String;
}

/// A whole number, perhaps within bounds.
pub struct Number<T> {
    pub name: &'static str,
    pub default: T,
    /// The least and most it may be; `None`: any `T` (a count: 0 or more).
    pub range: Option<RangeInclusive<T>>,
}

impl<T> Number<T> {
    pub const fn within(name: &'static str, default: T, range: RangeInclusive<T>) -> Number<T> {
        Number {
            name,
            default,
            range: Some(range),
        }
    }

    /// Any value of `T`: for the counts, where 0 turns a limit off.
    pub const fn any(name: &'static str, default: T) -> Number<T> {
        Number {
            name,
            default,
            range: None,
        }
    }
}

impl<T> Number<T>
where
    T: FromStr + PartialOrd + fmt::Display + Copy,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    pub fn read(&self, get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<T> {
        let value = match get(self.name) {
            Some(raw) => parsed(self.name, &raw)?,
            None => self.default,
        };
        if let Some(range) = &self.range {
            anyhow::ensure!(
                range.contains(&value),
                "{}={value} is out of range ({}..={})",
                self.name,
                range.start(),
                range.end()
            );
        }
        Ok(value)
    }
}

impl<T: fmt::Display> Described for Number<T> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn default_text(&self) -> String {
        format!("`{}`", self.default)
    }
    fn accepts(&self) -> String {
        match &self.range {
            Some(range) => format!("{}..{}", range.start(), range.end()),
            None => "0 or more".into(),
        }
    }
}

/// A number of seconds.
pub struct Secs(pub Number<u64>);

impl Secs {
    pub const fn within(name: &'static str, default: u64, range: RangeInclusive<u64>) -> Secs {
        Secs(Number::within(name, default, range))
    }
    pub const fn default(&self) -> Duration {
        Duration::from_secs(self.0.default)
    }
    pub fn read(&self, get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Duration> {
        self.0.read(get).map(Duration::from_secs)
    }
}

/// A number of milliseconds.
pub struct Millis(pub Number<u64>);

impl Millis {
    pub const fn within(name: &'static str, default: u64, range: RangeInclusive<u64>) -> Millis {
        Millis(Number::within(name, default, range))
    }
    pub const fn default(&self) -> Duration {
        Duration::from_millis(self.0.default)
    }
    pub fn read(&self, get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Duration> {
        self.0.read(get).map(Duration::from_millis)
    }
}

/// On when `1` or `true` (any case); off otherwise, and by default.
pub struct Flag(pub &'static str);

impl Flag {
    pub fn read(&self, get: &impl Fn(&str) -> Option<String>) -> bool {
        get(self.0).is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
    }
}

/// A value with a default, which is read as if it had been given.
pub struct Text<T> {
    pub name: &'static str,
    pub default: &'static str,
    pub accepts: &'static str,
    /// The value from the variable's name and text; an error names the variable.
    pub parse: fn(&str, &str) -> anyhow::Result<T>,
}

impl<T> Text<T> {
    pub fn read(&self, get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<T> {
        match get(self.name) {
            Some(raw) => (self.parse)(self.name, &raw),
            None => (self.parse)(self.name, self.default),
        }
    }
}

/// A value that may be left unset; what unset means is the reader's to say.
pub struct Optional<T> {
    pub name: &'static str,
    pub accepts: &'static str,
    /// The value from the variable's name and text; an error names the variable.
    pub parse: fn(&str, &str) -> anyhow::Result<T>,
}

impl<T> Optional<T> {
    pub fn read(&self, get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Option<T>> {
        get(self.name)
            .map(|raw| (self.parse)(self.name, &raw))
            .transpose()
    }
}

impl Described for Secs {
    fn name(&self) -> &'static str {
        self.0.name
    }
    fn default_text(&self) -> String {
        self.0.default_text()
    }
    fn accepts(&self) -> String {
        self.0.accepts()
    }
}

impl Described for Millis {
    fn name(&self) -> &'static str {
        self.0.name
    }
    fn default_text(&self) -> String {
        self.0.default_text()
    }
    fn accepts(&self) -> String {
        self.0.accepts()
    }
}

impl Described for Flag {
    fn name(&self) -> &'static str {
        self.0
    }
    fn default_text(&self) -> String {
        "off".into()
    }
    fn accepts(&self) -> String {
        "`1` or `true`".into()
    }
}

impl<T> Described for Text<T> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn default_text(&self) -> String {
        format!("`{}`", self.default)
    }
    fn accepts(&self) -> String {
        self.accepts.into()
    }
}

impl<T> Described for Optional<T> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn default_text(&self) -> String {
        "unset".into()
    }
    fn accepts(&self) -> String {
        self.accepts.into()
    }
}

/// Any `FromStr` value, the text trimmed; an error names the variable and
/// the text as given.
pub(super) fn parsed<T>(name: &str, raw: &str) -> anyhow::Result<T>
where
    T: FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    raw.trim()
        .parse()
        .with_context(|| format!("{name}={raw:?} is not valid"))
}

/// The text as given.
pub(super) fn text(_name: &str, raw: &str) -> anyhow::Result<String> {
    Ok(raw.to_string())
}

/// The text as given, kept out of logs.
pub(super) fn secret(_name: &str, raw: &str) -> anyhow::Result<Secret> {
    Ok(Secret::new(raw))
}

/// The text trimmed, kept out of logs (a key pasted with a newline).
pub(super) fn trimmed_secret(_name: &str, raw: &str) -> anyhow::Result<Secret> {
    Ok(Secret::new(raw.trim()))
}

/// How log lines are written: `SEATMAP_LOG_FORMAT=json` gives one JSON
/// object a line; anything else, text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

/// An http(s) base with no path after it but perhaps a port; no trailing slash.
pub(super) fn api_url(name: &str, raw: &str) -> anyhow::Result<String> {
    let value = raw.trim().trim_end_matches('/');
    let parsed = url::Url::parse(value)
        .map_err(|err| anyhow::anyhow!("{name}={value:?} is not a URL: {err}"))?;
    anyhow::ensure!(
        matches!(parsed.scheme(), "http" | "https")
            && parsed.host().is_some()
            && parsed.query().is_none()
            && parsed.username().is_empty(),
        "{name}={value:?} is not an http(s) base URL"
    );
    Ok(value.to_string())
}
