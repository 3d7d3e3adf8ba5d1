//! The tree's shape, held by tests rather than by prose: the README stays
//! a front door, and no source file grows into a catch-all.

use std::path::{Path, PathBuf};

/// The README a newcomer reads on one screen or two: what seatmap is, the
/// two commands, "Try it", links. References live in `docs/`.
const README_MAX_LINES: usize = 250;

/// Past this, a file is split by concern, unless it is one concern that
/// can be named in a line (below).
const FILE_MAX_LINES: usize = 700;

/// Files allowed past the limit, each with the one concern it is.
const ONE_CONCERN: &[(&str, &str)] = &[(
    "src/words.rs",
    "every sentence more than one place says (refusals, times, sizes): one table of words",
)];

/// Libraries we vendor rather than write: their size is not ours.
const VENDORED: &[&str] = &[
    "static/jsQR.js",
    "static/htmx.min.js",
    "static/htmx-ext-sse.min.js",
    "static/swagger-ui/",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn is_source(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("rs" | "js" | "mjs" | "css")
    )
}

/// Source files under `dirs` (relative to `root`), as paths relative to it.
fn sources(root: &Path, dirs: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending: Vec<PathBuf> = dirs.iter().map(|d| root.join(d)).collect();
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == "target" || name == "node_modules" {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else if is_source(&path) {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy();
                found.push(relative.replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

fn lines_of(root: &Path, file: &str) -> usize {
    std::fs::read_to_string(root.join(file))
        .unwrap_or_else(|err| panic!("read {file}: {err}"))
        .lines()
        .count()
}

/// Files over `limit` lines that are neither vendored nor named as one
/// concern, with their lines.
fn oversized(root: &Path, dirs: &[&str], limit: usize) -> Vec<(String, usize)> {
    sources(root, dirs)
        .into_iter()
        .filter(|file| !VENDORED.iter().any(|v| file.starts_with(v)))
        .filter(|file| !ONE_CONCERN.iter().any(|(allowed, _)| file == allowed))
        .map(|file| {
            let lines = lines_of(root, &file);
            (file, lines)
        })
        .filter(|(_, lines)| *lines > limit)
        .collect()
}

#[test]
fn the_readme_stays_a_front_door() {
    let lines = lines_of(&root(), "README.md");
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, over {README_MAX_LINES}: move reference material to docs/ and link it"
    );
}

#[test]
fn no_source_file_grows_into_a_catch_all() {
    let over = oversized(&root(), &["src", "crates", "static"], FILE_MAX_LINES);
    assert!(
        over.is_empty(),
        "over {FILE_MAX_LINES} lines; split by concern (or, if it is one concern, name it in ONE_CONCERN): {over:?}"
    );
}

#[test]
fn a_file_allowed_past_the_limit_still_needs_the_allowance() {
    let stale: Vec<&str> = ONE_CONCERN
        .iter()
        .map(|(file, _)| *file)
        .filter(|file| lines_of(&root(), file) <= FILE_MAX_LINES)
        .collect();
    assert!(
        stale.is_empty(),
        "back under {FILE_MAX_LINES} lines: drop the allowance for {stale:?}"
    );
}

/// The check can fail: with a limit no real file keeps, it finds the
/// tree's files, and it never reports a vendored one.
#[test]
fn the_size_check_finds_files_over_a_limit_and_skips_vendored_ones() {
    let over = oversized(&root(), &["src", "static"], 10);
    assert!(
        over.iter()
            .any(|(file, _)| file == "src/lib.rs" || file == "src/main.rs")
    );
    assert!(over.iter().any(|(file, _)| file.starts_with("static/")));
    assert!(!over.iter().any(|(file, _)| file == "static/jsQR.js"));
    assert!(!over.iter().any(|(file, _)| file == "src/words.rs"));
}
