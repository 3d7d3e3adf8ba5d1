#!/usr/bin/env bash
# Runs every test seatmap has: unit, integration (against a real PostgreSQL)
# and browser (Playwright driving Debian's Chromium). Installs what is
# missing first, so it works on a fresh machine:
#
#     bash tests/run-all.sh
#
# The integration tests start a throwaway PostgreSQL from the system's
# binaries, or use TEST_DATABASE_URL if set. The browser tests start the app
# itself with its embedded PostgreSQL. Nothing downloads a browser.
set -uo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n== %s\n' "$*"; }

have_pg_server() {
  command -v initdb >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

missing=()
have_pg_server || missing+=(postgresql)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
# The mail tests deliver to a real SMTP server: Debian's aiosmtpd, run by
# Debian's own python3 (a pyenv or venv python on PATH may lack it).
/usr/bin/python3 -c 'import aiosmtpd' >/dev/null 2>&1 || missing+=(python3-aiosmtpd)
# Schemathesis is installed by pip into a virtualenv (tests/api-fuzz.sh).
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing what the tests need and this machine lacks: ${missing[*]} (Debian packages)"
  if [ "$(id -u)" = 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "missing: ${missing[*]}. Install them as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  # dpkg's own chatter goes to a log, shown only if the install fails.
  apt_log=$(mktemp)
  if ! { "${sudo[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    echo "installing ${missing[*]} failed (output above)" >&2
    exit 1
  fi
  rm -f "$apt_log"
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is missing: install Rust (https://rustup.rs) and run this again" >&2
  exit 1
fi

failed=()
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

say "unit and integration tests (cargo test)"
cargo test --locked 2>&1 | tee "$logs/cargo.log"
[ "${PIPESTATUS[0]}" = 0 ] || failed+=("cargo test")

# cargo test does not build [[bench]] targets: build them (in the debug
# profile, reusing what cargo test built), so a benchmark that no longer
# compiles fails here rather than on the next person's run.
say "benchmarks compile (cargo build --benches)"
cargo build --locked --benches 2>&1 | tail -n 3
[ "${PIPESTATUS[0]}" = 0 ] || failed+=("cargo build --benches")

# The server's own build carries no HTTP client and no load generator:
# those come only with the "loadgen" feature (seatmap-bench, the tests).
say "the server build has no load generator (cargo tree)"
if cargo tree --locked -e normal --target all 2>/dev/null | grep -qE '^[^a-z]*(reqwest|tempfile) v'; then
  echo "a plain build pulls in the load generator's HTTP client" >&2
  failed+=("server build without loadgen")
fi

say "browser tests (Playwright, /usr/bin/chromium)"
if cargo build --locked --bin seatmap; then
  e2e_data=$(mktemp -d "${TMPDIR:-/tmp}/seatmap-e2e-XXXXXX")
  chmod 755 "$e2e_data"
  trap 'rm -rf "$logs" "$e2e_data"' EXIT
  (
    cd tests/e2e &&
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error &&
      SEATMAP_E2E_DATA_DIR="$e2e_data" npx playwright test
  ) 2>&1 | tee "$logs/playwright.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed+=("playwright")

  # Its own log (not *.log): its "N passed" lines count generated cases,
  # not tests, and stay out of the closing tally.
  say "API fuzzing (Schemathesis against the OpenAPI document)"
  bash tests/api-fuzz.sh 2>&1 | tee "$logs/api-fuzz.out"
  [ "${PIPESTATUS[0]}" = 0 ] || failed+=("api fuzzing")
else
  failed+=("cargo build")
fi

# One closing line for everything: cargo's own last line is the doc tests'.
count() { cat "$logs"/*.log 2>/dev/null | grep -oE "[0-9]+ $1" | awk '{ n += $1 } END { print n + 0 }'; }
passed=$(count passed)
failures=$(count failed)
if [ ${#failed[@]} -gt 0 ]; then
  say "FAILED: ${failed[*]}"
  echo "all: ${passed:-0} passed, ${failures:-0} failed"
  exit 1
fi
say "all tests passed"
echo "all: ${passed:-0} passed, ${failures:-0} failed"
