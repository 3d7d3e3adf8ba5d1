//! Parsing the environment; the table (`settings`) held to what is read,
//! and `docs/operations.md`'s table held to it.

use super::*;
use std::collections::HashMap;

fn config_from(pairs: &[(&str, &str)]) -> anyhow::Result<Config> {
    let env: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_lookup(|name| env.get(name).cloned())
}

#[test]
fn defaults_use_the_embedded_database_and_documented_limits() {
    let config = config_from(&[]).unwrap();
    assert!(matches!(
        config.database,
        DatabaseSource::Embedded { data_dir: None }
    ));
    assert_eq!(config.addr.to_string(), "127.0.0.1:3000");
    assert_eq!(config.hold_ttl, Duration::from_secs(480));
    assert_eq!(config.max_seats_per_hold, 10);
    assert!(!config.secure_cookies);
    assert_eq!(config.limits.max_holds_per_ip, 20);
    assert!(!config.trust_forwarded_for);
}

#[test]
fn reads_every_documented_variable() {
    let config = config_from(&[
        ("DATABASE_URL", "postgres://u:pw@localhost/db"),
        ("SEATMAP_ADDR", "0.0.0.0:8080"),
        ("SEATMAP_HOLD_TTL_SECS", "30"),
        ("SEATMAP_MAX_SEATS_PER_HOLD", "4"),
        ("SEATMAP_SECURE_COOKIES", "1"),
        ("SEATMAP_MAX_HOLDS_PER_IP", "3"),
        ("SEATMAP_HOLD_REQUESTS_PER_MINUTE", "0"),
    ])
    .unwrap();
    assert_eq!(config.limits.max_holds_per_ip, 3);
    assert_eq!(config.limits.hold_requests_per_session, 0);
    assert!(
        matches!(config.database, DatabaseSource::Url(ref s) if s.expose() == "postgres://u:pw@localhost/db")
    );
    assert_eq!(config.addr.port(), 8080);
    assert_eq!(config.hold_ttl, Duration::from_secs(30));
    assert_eq!(config.max_seats_per_hold, 4);
    assert!(config.secure_cookies);
}

#[test]
fn rejects_bad_values_naming_the_variable() {
    for (name, value) in [
        ("SEATMAP_HOLD_TTL_SECS", "0"),
        ("SEATMAP_HOLD_TTL_SECS", "soon"),
        ("SEATMAP_MAX_SEATS_PER_HOLD", "-1"),
        ("SEATMAP_ADDR", "nowhere"),
        (
            "SEATMAP_FRAME_ANCESTORS",
            "https://ok.example javascript:alert(1)",
        ),
        ("SEATMAP_FRAME_ANCESTORS", "https://a.example/path"),
        ("SEATMAP_FRAME_ANCESTORS", "https://a.example;script-src"),
    ] {
        let err = config_from(&[(name, value)]).unwrap_err().to_string();
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn frame_ancestors_are_origins() {
    let config = config_from(&[(
        "SEATMAP_FRAME_ANCESTORS",
        " https://tickets.example.org  http://localhost:8080 ",
    )])
    .unwrap();
    assert_eq!(
        config.frame_ancestors,
        ["https://tickets.example.org", "http://localhost:8080"]
    );
    assert!(config_from(&[]).unwrap().frame_ancestors.is_empty());
}

#[test]
fn database_url_is_not_printed_by_debug() {
    let config = config_from(&[("DATABASE_URL", "postgres://u:hunter2@h/db")]).unwrap();
    assert!(!format!("{config:?}").contains("hunter2"));
}

#[test]
fn old_names_still_work_and_are_named_for_the_warning() {
    let old = [("HOLD_TTL_SECS", "30"), ("MAX_CONNECTIONS", "64")];
    let config = config_from(&old).unwrap();
    assert_eq!(config.hold_ttl, Duration::from_secs(30));
    assert_eq!(config.server.max_connections, 64);
    let env: std::collections::HashMap<_, _> = old.into_iter().collect();
    let named = |old, new, ignored| OldName { old, new, ignored };
    assert_eq!(
        old_names_in_use(|name| env.get(name).map(|v| v.to_string())),
        [
            named("HOLD_TTL_SECS", "SEATMAP_HOLD_TTL_SECS", false),
            named("MAX_CONNECTIONS", "SEATMAP_MAX_CONNECTIONS", false),
        ]
    );
    // The new name wins when both are set, and the warning says so.
    let both = [("HOLD_TTL_SECS", "30"), ("SEATMAP_HOLD_TTL_SECS", "40")];
    assert_eq!(
        config_from(&both).unwrap().hold_ttl,
        Duration::from_secs(40)
    );
    let env: std::collections::HashMap<_, _> = both.into_iter().collect();
    assert_eq!(
        old_names_in_use(|name| env.get(name).map(|v| v.to_string())),
        [named("HOLD_TTL_SECS", "SEATMAP_HOLD_TTL_SECS", true)]
    );
    // A bad value under the old name is reported under that name.
    let env: std::collections::HashMap<_, _> = [("HOLD_TTL_SECS", "0")].into_iter().collect();
    let err = Config::from_lookup_naming_old(|name| env.get(name).map(|v| v.to_string()))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("HOLD_TTL_SECS=0"), "{err}");
}

/// Every name the configuration asks the environment for, old names
/// aside: what a lookup that answers nothing is asked.
fn variables_read() -> std::collections::BTreeSet<String> {
    let asked = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let record = |name: &str| {
        asked.borrow_mut().insert(name.to_string());
        None
    };
    Config::from_lookup(record).unwrap();
    logging(record);
    let old: Vec<&str> = RENAMED.iter().map(|(old, _)| *old).collect();
    asked
        .into_inner()
        .into_iter()
        .filter(|name| !old.contains(&name.as_str()))
        .collect()
}

/// The names in the table, each once.
fn variables_in_table() -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for setting in settings::ALL {
        assert!(
            names.insert(setting.name().to_string()),
            "{} is in the table twice",
            setting.name()
        );
    }
    names
}

#[test]
fn the_table_is_exactly_what_is_read() {
    let read = variables_read();
    let table = variables_in_table();
    let untabled: Vec<_> = read.difference(&table).collect();
    let unread: Vec<_> = table.difference(&read).collect();
    assert!(
        untabled.is_empty(),
        "read but not in settings::ALL: {untabled:?}"
    );
    assert!(
        unread.is_empty(),
        "in settings::ALL but never read: {unread:?}"
    );
    // Every old name points at a name that is read.
    for (old, new) in RENAMED {
        assert!(
            read.contains(*new),
            "{old} is renamed to {new}, which nothing reads"
        );
    }
    let unprefixed: Vec<_> = read
        .iter()
        .filter(|name| !name.starts_with("SEATMAP_"))
        .collect();
    // DATABASE_URL is the convention every PostgreSQL tool knows, and
    // RUST_LOG tracing's own: the two names kept on purpose.
    assert_eq!(unprefixed, ["DATABASE_URL", "RUST_LOG"]);
}

/// One row of the docs' settings table: variable, default and accepts,
/// as written.
struct DocRow {
    name: String,
    default: String,
    accepts: String,
}

const DOCS_HEADER: &str = "| variable | default | accepts | meaning |";

/// The rows of the one table in `docs/operations.md` headed
/// [`DOCS_HEADER`].
fn docs_table() -> Vec<DocRow> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operations.md");
    let docs = std::fs::read_to_string(path).unwrap();
    let mut tables = docs.split(DOCS_HEADER).skip(1);
    let table = tables
        .next()
        .unwrap_or_else(|| panic!("{path} has no table headed {DOCS_HEADER}"));
    assert!(
        tables.next().is_none(),
        "{path} has more than one table headed {DOCS_HEADER}: make it one"
    );
    table
        .lines()
        .skip(2) // the rest of the header line, and the | --- | line
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line
                .trim_start_matches('|')
                .trim_end_matches('|')
                .splitn(4, " | ")
                .map(str::trim)
                .collect();
            assert_eq!(cells.len(), 4, "not a row of four cells: {line}");
            let name = cells[0].trim_matches('`');
            assert_eq!(cells[0], format!("`{name}`"), "not a `name`: {line}");
            DocRow {
                name: name.to_string(),
                default: cells[1].to_string(),
                accepts: cells[2].to_string(),
            }
        })
        .collect()
}

#[test]
fn the_operations_table_documents_every_setting_as_the_table_has_it() {
    let rows = docs_table();
    let mut wrong = Vec::new();
    for setting in settings::ALL {
        let name = setting.name();
        let Some(row) = rows.iter().find(|row| row.name == name) else {
            wrong.push(format!("{name} is not in docs/operations.md's table"));
            continue;
        };
        // The default, perhaps followed by what it means ("unset: nobody").
        let default = setting.default_text();
        if row.default != default && !row.default.starts_with(&format!("{default}: ")) {
            wrong.push(format!(
                "{name}: the docs give the default as {:?}, the table as {default:?}",
                row.default
            ));
        }
        if row.accepts != setting.accepts() {
            wrong.push(format!(
                "{name}: the docs say it accepts {:?}, the table {:?}",
                row.accepts,
                setting.accepts()
            ));
        }
    }
    let table = variables_in_table();
    let mut documented = std::collections::BTreeSet::new();
    for row in &rows {
        if !table.contains(&row.name) {
            wrong.push(format!("{} is documented but is no setting", row.name));
        }
        if !documented.insert(&row.name) {
            wrong.push(format!("{} is documented twice", row.name));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
