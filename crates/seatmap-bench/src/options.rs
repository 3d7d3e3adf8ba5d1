//! The command line: scenarios to run and the knobs they share.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use pg_embedded::Durability;

/// What the command line asked for.
pub struct Options {
    pub scenarios: Vec<String>,
    pub buyers: usize,
    pub duration: Duration,
    pub concurrency: usize,
    pub instances: usize,
    pub json: Option<PathBuf>,
    pub durability: Durability,
    pub pages: usize,
    pub picks_per_sec: u32,
    /// The `seatmap` to run; default: the one beside this binary.
    pub seatmap: Option<PathBuf>,
    /// Load pg_stat_statements and print where the database's time went.
    pub statements: bool,
    /// onsale: buyers who join the queue in all, and of them before the opening.
    pub arrivals: usize,
    pub before_open: usize,
    /// onsale: the queue's admissions per minute; None: "auto".
    pub admit_per_minute: Option<i32>,
}

impl Options {
    /// Reads the command line; `--help` prints the scenarios (lines 12–36
    /// of main.rs's doc comment) and exits.
    pub fn from_args() -> anyhow::Result<Options> {
        let mut options = Options {
            scenarios: Vec::new(),
            buyers: 10_000,
            duration: Duration::from_secs(30),
            concurrency: 64,
            instances: 1,
            json: None,
            durability: Durability::Durable,
            pages: 1000,
            picks_per_sec: 10,
            seatmap: None,
            statements: false,
            arrivals: 20_000,
            before_open: 15_000,
            admit_per_minute: Some(6_000),
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value =
                |name: &str| args.next().with_context(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--buyers" => options.buyers = value("--buyers")?.parse()?,
                "--duration" => {
                    let raw = value("--duration")?;
                    options.duration = Duration::from_secs_f64(raw.trim_end_matches('s').parse()?);
                }
                "--concurrency" => options.concurrency = value("--concurrency")?.parse()?,
                "--instances" => options.instances = value("--instances")?.parse()?,
                "--json" => options.json = Some(PathBuf::from(value("--json")?)),
                "--pages" => options.pages = value("--pages")?.parse()?,
                "--picks-per-sec" => options.picks_per_sec = value("--picks-per-sec")?.parse()?,
                "--statements" => options.statements = true,
                "--arrivals" => options.arrivals = value("--arrivals")?.parse()?,
                "--before-open" => options.before_open = value("--before-open")?.parse()?,
                "--admit-per-minute" => {
                    options.admit_per_minute = match value("--admit-per-minute")?.as_str() {
                        "auto" => None,
                        n => Some(n.parse()?),
                    }
                }
                "--seatmap-binary" => {
                    options.seatmap = Some(PathBuf::from(value("--seatmap-binary")?))
                }
                "--fsync" => {
                    options.durability = match value("--fsync")?.as_str() {
                        "off" => Durability::Throwaway,
                        _ => Durability::Durable,
                    }
                }
                "-h" | "--help" => {
                    println!(
                        "{}",
                        include_str!("main.rs")
                            .lines()
                            .skip(11)
                            .take(25)
                            .map(|l| l.trim_start_matches("//! "))
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                    std::process::exit(0);
                }
                scenario if !scenario.starts_with('-') => {
                    options.scenarios.push(scenario.to_string())
                }
                other => bail!("unknown option {other}"),
            }
        }
        anyhow::ensure!(options.buyers <= 100_000, "--buyers is capped at 100000");
        anyhow::ensure!(
            options.duration <= Duration::from_secs(600),
            "--duration is capped at 600 s"
        );
        anyhow::ensure!(
            (1..=512).contains(&options.concurrency),
            "--concurrency is 1..512"
        );
        anyhow::ensure!((1..=8).contains(&options.instances), "--instances is 1..8");
        anyhow::ensure!(
            options.arrivals <= 200_000 && options.before_open <= options.arrivals,
            "--arrivals is capped at 200000, and --before-open is at most --arrivals"
        );
        anyhow::ensure!(
            options
                .admit_per_minute
                .is_none_or(|n| (1..=1_000_000).contains(&n)),
            "--admit-per-minute is 1..1000000 or auto"
        );
        // The waiting room's cost per poll is read from pg_stat_statements.
        if options.scenarios.iter().any(|s| s == "onsale") {
            options.statements = true;
        }
        anyhow::ensure!((1..=5000).contains(&options.pages), "--pages is 1..5000");
        anyhow::ensure!(
            (1..=200).contains(&options.picks_per_sec),
            "--picks-per-sec is 1..200"
        );
        if options.scenarios.is_empty() {
            options.scenarios = ["hot-seat", "picks", "best", "mixed"]
                .map(String::from)
                .to_vec();
        }
        Ok(options)
    }
}
