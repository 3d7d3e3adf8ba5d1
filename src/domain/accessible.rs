//! When wheelchair spaces and companion seats, held back from general best
//! available, join general sale.

/// Staff's choice for an event: by the time before the start (`Auto`), or
/// by hand until set back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AccessibleRelease {
    /// Held back until `accessible_release_secs` before the start (never,
    /// if that is not set).
    #[default]
    Auto,
    /// Released to general best available now, whatever the time.
    Released,
    /// Held back, whatever the time.
    Held,
}

impl AccessibleRelease {
    pub const ALL: [AccessibleRelease; 3] = [
        AccessibleRelease::Auto,
        AccessibleRelease::Released,
        AccessibleRelease::Held,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AccessibleRelease::Auto => "auto",
            AccessibleRelease::Released => "released",
            AccessibleRelease::Held => "held",
        }
    }

    pub fn parse(text: &str) -> Option<AccessibleRelease> {
        AccessibleRelease::ALL
            .into_iter()
            .find(|mode| mode.as_str() == text)
    }

    pub fn label(self) -> &'static str {
        match self {
            AccessibleRelease::Auto => "Held back until the time set below (always, if none is)",
            AccessibleRelease::Released => "On general sale now",
            AccessibleRelease::Held => "Held back now, whatever the time",
        }
    }
}

/// The most a release may come before the start: a year.
pub const MAX_RELEASE_SECS: i64 = 31_536_000;
