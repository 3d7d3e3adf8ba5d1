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
# Ticket files are checked as real files: poppler reads the PDF, zbar its
# QR code, openssl makes throwaway wallet certificates and verifies passes.
command -v pdftotext >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)
command -v zbarimg >/dev/null 2>&1 || missing+=(zbar-tools)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# `seatmap-bench failover` builds a pg_auto_failover formation with
# Debian's pg_autoctl (the extension is built for Debian's PostgreSQL 15).
command -v pg_autoctl >/dev/null 2>&1 || missing+=(postgresql-15-auto-failover pg-auto-failover-cli)
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
# The Rust lint phases need rustfmt and clippy, which a minimal toolchain lacks.
for tool in fmt:rustfmt clippy:clippy; do
  if ! cargo "${tool%%:*}" --version >/dev/null 2>&1; then
    if ! { command -v rustup >/dev/null 2>&1 && rustup component add "${tool##*:}"; }; then
      echo "cargo ${tool%%:*} is missing: install it (rustup component add ${tool##*:}) and run this again" >&2
      exit 1
    fi
  fi
done

# Each phase's outcome, by name: its own counts, or that it failed to run.
summary=()
failed=()
passed_total=0
failed_total=0
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Adds a phase's counts to the tally. A phase that exited non-zero with
# no failing test of its own counted (a build error, a binary killed by
# a signal, a server that never started) is a failure by name.
tally() { # name exit passed failed
  local name=$1 code=$2 passed=$3 fails=$4
  passed_total=$((passed_total + passed))
  failed_total=$((failed_total + fails))
  if [ "$code" = 0 ] && [ "$passed" = 0 ] && [ "$fails" = 0 ]; then
    summary+=("$name: ok")
  elif [ "$code" != 0 ] && [ "$fails" = 0 ]; then
    summary+=("$name: $passed passed, did not finish (exit $code)")
    failed+=("$name (did not finish)")
    failed_total=$((failed_total + 1))
  elif [ "$code" != 0 ]; then
    summary+=("$name: $passed passed, $fails failed")
    failed+=("$name")
  else
    summary+=("$name: $passed passed, $fails failed")
  fi
}

# Each phase has a time limit, so a hung test ends the run with its
# phase named instead of stalling CI until its own limit.
CARGO_TEST_LIMIT=${CARGO_TEST_LIMIT:-40m}
BROWSER_LIMIT=${BROWSER_LIMIT:-30m}
FUZZ_LIMIT=${FUZZ_LIMIT:-15m}
timed_out() { # phase limit
  summary+=("$1: timed out after $2")
  failed+=("$1 (timed out after $2)")
  failed_total=$((failed_total + 1))
}

# The browser code's lint and unit tests (tests/js), first: they take
# seconds. ESLint counts each file it passed (one with a problem fails),
# Node's runner its tests.
JS_LIMIT=${JS_LIMIT:-5m}
say "javascript lint (ESLint over static/ and tests/js)"
if (cd tests/js && npm ci --no-audit --no-fund --loglevel=error) >"$logs/js-install.out" 2>&1; then
  timeout --kill-after=10s "$JS_LIMIT" tests/js/node_modules/.bin/eslint --config tests/js/eslint.config.js \
    --max-warnings 0 --format json --output-file "$logs/eslint.json" static tests/js
  lint_code=$?
  # Files linted, and those with a problem (none counted if it crashed).
  read -r lint_files lint_bad <<<"$(node -e 'const files = require(process.argv[1]);
    console.log(files.length, files.filter((f) => f.errorCount + f.warningCount > 0).length)' \
    "$logs/eslint.json" 2>/dev/null || echo 0 0)"
  if [ "$lint_code" = 124 ] || [ "$lint_code" = 137 ]; then
    timed_out "javascript lint" "$JS_LIMIT"
  else
    # What it found, said as people read it.
    [ "$lint_code" = 0 ] || tests/js/node_modules/.bin/eslint --config tests/js/eslint.config.js static tests/js
    echo "ESLint: $lint_files files, $lint_bad with problems"
    tally "javascript lint" "$lint_code" $((lint_files - lint_bad)) "$lint_bad"
  fi
else
  cat "$logs/js-install.out" >&2
  tally "javascript lint (npm ci in tests/js)" 1 0 0
fi

say "javascript unit tests (node --test, tests/js/unit)"
(cd tests/js && timeout --kill-after=10s "$JS_LIMIT" node --test --disable-warning=ExperimentalWarning unit/) 2>&1 | tee "$logs/js-unit.out"
js_code=${PIPESTATUS[0]}
js_passed=$(awk '/^# pass [0-9]+$/ { n += $3 } END { print n + 0 }' "$logs/js-unit.out")
js_failed=$(awk '/^# fail [0-9]+$/ { n += $3 } END { print n + 0 }' "$logs/js-unit.out")
if [ "$js_code" = 124 ] || [ "$js_code" = 137 ]; then
  tally "javascript unit" 0 "$js_passed" "$js_failed"
  timed_out "javascript unit" "$JS_LIMIT"
else
  tally "javascript unit" "$js_code" "$js_passed" "$js_failed"
fi

# The Rust's lint: formatting and clippy, warnings as errors. Each counts
# as one check in the tally; what they found is printed above it.
say "rust formatting (cargo fmt --all -- --check)"
cargo fmt --all -- --check >"$logs/fmt.out" 2>&1
fmt_code=$?
if [ "$fmt_code" = 0 ]; then
  tally "rust formatting" 0 1 0
else
  cat "$logs/fmt.out"
  tally "rust formatting" "$fmt_code" 0 1
fi

say "rust lint (cargo clippy --workspace --all-targets -- -D warnings)"
timeout --kill-after=30s "$CARGO_TEST_LIMIT" \
  cargo clippy --locked --workspace --all-targets -- -D warnings >"$logs/clippy.out" 2>&1
clippy_code=$?
if [ "$clippy_code" = 0 ]; then
  tally "rust lint" 0 1 0
elif [ "$clippy_code" = 124 ] || [ "$clippy_code" = 137 ]; then
  timed_out "rust lint" "$CARGO_TEST_LIMIT"
else
  grep -E '^(warning|error)' -A12 "$logs/clippy.out" | head -n 200
  tally "rust lint" "$clippy_code" 0 1
fi

say "unit and integration tests (cargo test --workspace --no-fail-fast)"
timeout --kill-after=30s "$CARGO_TEST_LIMIT" \
  cargo test --locked --workspace --no-fail-fast 2>&1 | tee "$logs/cargo.out"
cargo_code=${PIPESTATUS[0]}
# Counts per test binary: "Running unittests src/…" are unit tests,
# "Running tests/…" the integration binary, "Doc-tests" the doc tests.
count_cargo() { # kind: unit|integration|doc -> "passed failed"
  awk -v kind="$1" '
    /^ *Running unittests / { current = "unit"; next }
    /^ *Running tests\//    { current = "integration"; next }
    /^ *Doc-tests /         { current = "doc"; next }
    /^test result:/ && current == kind {
      for (i = 1; i <= NF; i++) {
        if ($(i) ~ /^passed;?$/) p += $(i - 1)
        if ($(i) ~ /^failed;?$/) f += $(i - 1)
      }
    }
    END { print p + 0, f + 0 }' "$logs/cargo.out"
}
# A test binary that died (a signal, a panic outside a test, a killed
# process) prints no failures of its own, and the others' counts would
# hide it: cargo names it in "process didn't exit successfully: `…`". Each
# such binary with no failed test of its own is a failure by its name.
crashed_binaries() {
  grep -oE "process didn't exit successfully: \`[^\`]+\`[^)]*\)?" "$logs/cargo.out" |
    while read -r line; do
      bin=$(printf '%s' "$line" | sed -E 's/.*`([^` ]+)[^`]*`.*/\1/')
      name=$(basename "$bin" | sed -E 's/-[0-9a-f]{16}$//')
      # Its own "test result" line, if it got that far.
      own=$(awk -v bin="$(basename "$bin")" '
        index($0, "Running") && index($0, bin) { mine = 1; next }
        /^ *(Running|Doc-tests) / { mine = 0 }
        mine && /^test result:/ { print; exit }' "$logs/cargo.out")
      if [ -z "$own" ] || printf '%s' "$own" | grep -qE ' 0 failed'; then
        why=$(printf '%s' "$line" | grep -oE '\((exit status|signal)[^)]*\)' | head -n 1)
        printf '%s %s\n' "$name" "${why:-(did not finish)}"
      fi
    done
}
read -r unit_passed unit_failed <<<"$(count_cargo unit)"
read -r it_passed it_failed <<<"$(count_cargo integration)"
read -r doc_passed doc_failed <<<"$(count_cargo doc)"
# One exit code covers all three. A phase with failures of its own is
# named by them; an exit with none counted anywhere (a build error, a test
# binary killed by a signal) is cargo test failing to finish.
crashed=$(crashed_binaries)
if [ "$cargo_code" = 124 ] || [ "$cargo_code" = 137 ]; then
  tally unit 0 "$unit_passed" "$unit_failed"
  tally integration 0 "$it_passed" "$it_failed"
  timed_out "cargo test" "$CARGO_TEST_LIMIT"
elif [ -n "$crashed" ]; then
  tally unit 0 "$unit_passed" "$unit_failed"
  tally integration 0 "$it_passed" "$it_failed"
  tally doc 0 "$doc_passed" "$doc_failed"
  while read -r name why; do
    summary+=("test binary $name: did not finish $why")
    failed+=("$name (did not finish)")
    failed_total=$((failed_total + 1))
  done <<<"$crashed"
  if [ $((unit_failed + it_failed + doc_failed)) != 0 ]; then
    failed+=("tests that failed (above)")
  fi
elif [ "$cargo_code" != 0 ] && [ $((unit_failed + it_failed + doc_failed)) = 0 ]; then
  tally "cargo test" "$cargo_code" $((unit_passed + it_passed + doc_passed)) 0
else
  phase_code() { if [ "$cargo_code" != 0 ] && [ "$1" != 0 ]; then echo "$cargo_code"; else echo 0; fi; }
  tally unit "$(phase_code "$unit_failed")" "$unit_passed" "$unit_failed"
  tally integration "$(phase_code "$it_failed")" "$it_passed" "$it_failed"
  tally doc "$(phase_code "$doc_failed")" "$doc_passed" "$doc_failed"
fi

# cargo test does not build [[bench]] targets: build them (in the debug
# profile, reusing what cargo test built), so a benchmark that no longer
# compiles fails here rather than on the next person's run.
say "benchmarks compile (cargo build --workspace --benches)"
cargo build --locked --workspace --benches 2>&1 | tail -n 3
tally "benchmarks compile" "${PIPESTATUS[0]}" 0 0

# The server's own build carries no load generator: crates/seatmap-bench
# and tempfile belong to the tests. The server has reqwest since issue 30
# (Stripe's client), but none of the load generator's features (a cookie
# jar per simulated buyer, multipart uploads).
say "the server build has no load generator (cargo tree -p seatmap)"
if cargo tree --locked -p seatmap -e normal --target all >"$logs/tree.out" 2>&1 &&
  cargo tree --locked -p seatmap -e normal,features --target all -i reqwest >"$logs/reqwest.out" 2>&1; then
  if grep -qE '^[^a-z]*(tempfile|seatmap-bench) v' "$logs/tree.out" ||
    grep -qE 'reqwest feature "(cookies|multipart)"' "$logs/reqwest.out"; then
    echo "the server's own dependencies pull in the load generator or its HTTP client" >&2
    tally "server build without the load generator" 1 0 0
  else
    tally "server build without the load generator" 0 0 0
  fi
else
  cat "$logs/tree.out" >&2
  tally "server build without the load generator (cargo tree)" 1 0 0
fi

say "browser tests (Playwright, /usr/bin/chromium)"
# The Stripe stand-in (crates/stripe-standin) serves the payment tests.
if cargo build --locked --bin seatmap && cargo build --locked -p stripe-standin; then
  e2e_data=$(mktemp -d "${TMPDIR:-/tmp}/seatmap-e2e-XXXXXX")
  chmod 755 "$e2e_data"
  trap 'rm -rf "$logs" "$e2e_data"' EXIT
  (
    cd tests/e2e &&
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error &&
      SEATMAP_E2E_DATA_DIR="$e2e_data" timeout --kill-after=30s "$BROWSER_LIMIT" npx playwright test
  ) 2>&1 | tee "$logs/playwright.out"
  browser_code=${PIPESTATUS[0]}
  # Playwright's closing lines: "  27 passed (2.8m)", "  1 failed", "  1 flaky".
  browser_passed=$(grep -oE '^ +[0-9]+ passed' "$logs/playwright.out" | awk '{ n += $1 } END { print n + 0 }')
  browser_failed=$(grep -oE '^ +[0-9]+ (failed|flaky|interrupted|did not run)' "$logs/playwright.out" | awk '{ n += $1 } END { print n + 0 }')
  if [ "$browser_code" = 124 ] || [ "$browser_code" = 137 ]; then
    tally browser 0 "$browser_passed" "$browser_failed"
    timed_out browser "$BROWSER_LIMIT"
  else
    tally browser "$browser_code" "$browser_passed" "$browser_failed"
  fi

  # Counted as one phase: its "N passed" lines count generated cases.
  say "API fuzzing (Schemathesis against the OpenAPI document)"
  timeout --kill-after=30s "$FUZZ_LIMIT" bash tests/api-fuzz.sh 2>&1 | tee "$logs/api-fuzz.out"
  fuzz_code=${PIPESTATUS[0]}
  if [ "$fuzz_code" = 124 ] || [ "$fuzz_code" = 137 ]; then
    timed_out fuzzing "$FUZZ_LIMIT"
  elif [ "$fuzz_code" = 0 ]; then
    summary+=("fuzzing: passed")
  else
    summary+=("fuzzing: failed (exit $fuzz_code)")
    failed+=("fuzzing")
    failed_total=$((failed_total + 1))
  fi
else
  tally "cargo build --bin seatmap" 1 0 0
  summary+=("browser: not run (the app did not build)")
  summary+=("fuzzing: not run (the app did not build)")
  failed+=("browser (not run)" "fuzzing (not run)")
  failed_total=$((failed_total + 2))
fi

# The integration tests' cluster folder (seatmap-it-<pid>, 60-odd MB,
# stopped when its test process ended) goes once everything passed; a
# failed run keeps it, with the cluster's log, to look at.
if [ ${#failed[@]} -eq 0 ]; then
  for dir in "${TMPDIR:-/tmp}"/seatmap-it-*; do
    pid=${dir##*-}
    if [ -d "$dir" ] && [ ! -d "/proc/$pid" ]; then rm -rf "$dir"; fi
  done
fi

say "summary"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  say "FAILED: ${failed[*]}"
  echo "all: $passed_total passed, $failed_total failed ($(IFS=,; echo "${failed[*]}" | sed 's/,/, /g'))"
  exit 1
fi
say "all tests passed"
echo "all: $passed_total passed, $failed_total failed"
