use std::process::ExitCode;

use seatmap::config::{self, Config};
use seatmap::{cli, startup};

const USAGE: &str = "\
usage: seatmap [serve]          run the web app (default)
       seatmap demo             seed the demo event into the configured database and print its id
       seatmap staff add NAME [--role door|box_office|manager|admin]
                                create a staff account, manager by default
                                (password from the terminal or stdin)
       seatmap staff list       list staff accounts with their roles
       seatmap staff role NAME ROLE  change an account's role (the first admin, say)
       seatmap apikey add NAME SCOPE [--role ROLE]
                                make an API key (read, sell or box-office, a staff key
                                with a role: box_office unless --role says); printed once
       seatmap apikey list      list API keys
       seatmap apikey role NAME ROLE  give a staff key another role
       seatmap apikey revoke NAME  revoke an API key at once
       seatmap venue check FILE validate a venue layout (.json or .csv) and say what is wrong, where
       seatmap venue import FILE validate a layout whole, then store it as a venue (nothing on failure)

Environment: DATABASE_URL (unset: embedded PostgreSQL in SEATMAP_DATA_DIR, default .seatmap),
SEATMAP_ADDR (default 127.0.0.1:3000), SEATMAP_HOLD_TTL_SECS (480), SEATMAP_MAX_SEATS_PER_HOLD (10);
every variable: the settings table in docs/operations.md.";

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("seatmap: starting the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(run());
    // Blocking work still running (a password check, a layout parse) must
    // not keep a stopping process alive: it is bounded, and then abandoned.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    code
}

async fn run() -> ExitCode {
    // Logs go to stderr so that stdout carries only results (`seatmap demo`
    // prints an id).
    let (format, filter) = config::logging(|name| std::env::var(name).ok());
    let filter = tracing_subscriber::EnvFilter::try_new(&filter).unwrap_or_else(|err| {
        eprintln!("seatmap: RUST_LOG={filter:?} is not a log filter ({err}); using the default");
        tracing_subscriber::EnvFilter::new(config::DEFAULT_LOG_FILTER)
    });
    // Colour only for a terminal: escape codes don't belong in a log file.
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(filter);
    match format {
        config::LogFormat::Json => logs.json().init(),
        config::LogFormat::Text => logs.init(),
    }
    for name in config::old_names_in_use(|name| std::env::var(name).ok()) {
        let (old, new) = (name.old, name.new);
        if name.ignored {
            tracing::warn!(
                "{old} and {new} are both set: {new} is used; unset {old}, its old name"
            );
        } else {
            tracing::warn!(
                "{old} is an old name: set {new} instead (the old name still works for now)"
            );
        }
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = args.first().cloned();
    if matches!(command.as_deref(), Some("help" | "--help" | "-h")) {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    // Checking a layout file needs no configuration or database.
    if command.as_deref() == Some("venue") && args.get(1).map(String::as_str) != Some("import") {
        return match (args.get(1).map(String::as_str), args.get(2)) {
            (Some("check"), Some(file)) => checked(cli::venue_check(std::path::Path::new(file))),
            _ => {
                eprintln!("seatmap: usage: seatmap venue check FILE | seatmap venue import FILE");
                ExitCode::from(2)
            }
        };
    }
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(err) => {
            eprintln!("seatmap: configuration error: {err:#}");
            return ExitCode::from(2);
        }
    };
    let outcome = match command.as_deref() {
        None | Some("serve") => startup::serve(config).await,
        Some("demo") => cli::demo(config).await.map(|ids| {
            for id in ids {
                println!("{id}");
            }
        }),
        Some("staff") => match (args.get(1).map(String::as_str), args.get(2)) {
            (Some("add"), Some(name)) => match cli::role_option(&args[3..]) {
                Ok(role) => cli::staff_add(config, name, role).await,
                Err(err) => {
                    eprintln!("seatmap: {err}");
                    return ExitCode::from(2);
                }
            },
            (Some("list"), None) => cli::staff_list(config).await,
            (Some("role"), Some(name)) if args.len() == 4 => {
                cli::staff_role(config, name, &args[3]).await
            }
            _ => {
                eprintln!(
                    "seatmap: usage: seatmap staff add NAME [--role door|box_office|manager|admin] \
                     | seatmap staff list | seatmap staff role NAME ROLE"
                );
                return ExitCode::from(2);
            }
        },
        Some("apikey") => match (args.get(1).map(String::as_str), args.get(2), args.get(3)) {
            (Some("add"), Some(name), Some(scope)) => {
                cli::apikey_add(config, name, scope, &args[4..]).await
            }
            (Some("list"), None, None) => cli::apikey_list(config).await,
            (Some("role"), Some(name), Some(role)) if args.len() == 4 => {
                cli::apikey_role(config, name, role).await
            }
            (Some("revoke"), Some(name), None) => cli::apikey_revoke(config, name).await,
            _ => {
                eprintln!(
                    "seatmap: usage: seatmap apikey add NAME read|sell|box-office \
                     [--role door|box_office|manager|admin] | \
                     seatmap apikey list | seatmap apikey role NAME ROLE | \
                     seatmap apikey revoke NAME"
                );
                return ExitCode::from(2);
            }
        },
        Some("venue") => match args.get(2) {
            Some(file) => {
                return checked(cli::venue_import(config, std::path::Path::new(file)).await);
            }
            None => {
                eprintln!("seatmap: usage: seatmap venue import FILE");
                return ExitCode::from(2);
            }
        },
        Some(other) => {
            eprintln!("seatmap: unknown command {other:?}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("seatmap: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Exit status of a command that checks something: 0 when it passed, 1 when
/// it found problems (already printed) or failed.
fn checked(outcome: anyhow::Result<bool>) -> ExitCode {
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("seatmap: {err:#}");
            ExitCode::FAILURE
        }
    }
}
