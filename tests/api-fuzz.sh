#!/usr/bin/env bash
# Schemathesis against a live seatmap: every operation of the OpenAPI
# document, with its stateful links (hold -> purchase -> order, sale ->
# order -> refund), asserting no 5xx, responses that conform to the
# schema, and no undocumented status code. Run by tests/run-all.sh;
# by hand:
#
#     bash tests/api-fuzz.sh [SEED]     (needs target/debug/seatmap)
#
# Schemathesis comes from PyPI, pinned, into a virtualenv under target/.
set -uo pipefail
cd "$(dirname "$0")/.."

seed=${1:-1}
venv=target/schemathesis-venv
if ! "$venv/bin/st" --version 2>/dev/null | grep -q '4.32.5'; then
  echo "installing schemathesis 4.32.5 into $venv (pip)"
  rm -rf "$venv"
  python3 -m venv "$venv" &&
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'schemathesis==4.32.5' ||
    { echo "could not install schemathesis (needs python3 with venv, and PyPI)" >&2; exit 1; }
fi

data=$(mktemp -d "${TMPDIR:-/tmp}/seatmap-fuzz-XXXXXX")
chmod 755 "$data"
port=${SEATMAP_FUZZ_PORT:-3290}
log="$data/app.log"
# Limits against hoarding off: the fuzzer is one client making thousands
# of requests, and 429s would hide the operations behind them. So is the
# price of a waiting room's identities (the demo arena's puzzle, and one
# past an address's free joins): a join the schema allows would be a 422
# the fuzzer can't solve. tests/it/waiting_room.rs tests those.
SEATMAP_DATA_DIR="$data" SEATMAP_ADDR="127.0.0.1:$port" RUST_LOG=warn \
  SEATMAP_DEMO_QUEUE_WITHOUT_PUZZLE=1 SEATMAP_QUEUE_FREE_JOINS_PER_MINUTE=100000 \
  SEATMAP_MAX_HOLDS_PER_IP=0 SEATMAP_HOLD_REQUESTS_PER_MINUTE=0 SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_IP=0 \
  SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_KEY=0 \
  SEATMAP_STRIPE_SECRET_KEY=sk_test_fuzz SEATMAP_STRIPE_WEBHOOK_SECRET=whsec_fuzz \
  SEATMAP_STRIPE_API_URL=http://127.0.0.1:9 \
  target/debug/seatmap >"$log" 2>&1 &
app=$!
stop() {
  kill -TERM "$app" 2>/dev/null
  wait "$app" 2>/dev/null
  rm -rf "$data"
}
trap stop EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$port/api/events" >/dev/null 2>&1 && break
  kill -0 "$app" 2>/dev/null || { cat "$log" >&2; echo "the app did not start" >&2; exit 1; }
  sleep 0.5
done
office=$(SEATMAP_DATA_DIR="$data" RUST_LOG=error target/debug/seatmap apikey add office box-office 2>/dev/null) &&
  shop=$(SEATMAP_DATA_DIR="$data" RUST_LOG=error target/debug/seatmap apikey add shop sell 2>/dev/null) ||
  { echo "could not make the API keys" >&2; exit 1; }

status=0
# From the throwaway folder: Schemathesis keeps a cache of what it found in
# its working directory, which must not be the checkout (a test run leaves
# git clean).
config="$PWD/tests/schemathesis.toml"
st="$PWD/$venv/bin/st"
run() {
  (cd "$data" && "$st" --config-file "$config" run \
    "http://127.0.0.1:$port/api/openapi.json" \
    --checks all --max-examples 30 --seed "$seed" --no-color "$@") || status=1
}
echo "== schemathesis: the buyers' operations (no credentials: a session, as a browser)"
run --include-tag buyers
# One customer throughout, so the stateful links (hold -> purchase ->
# order) act on the holds the same caller made.
echo "== schemathesis: the buyers' operations (a sell key's customer)"
run --include-tag buyers -H "Authorization: Bearer $shop" -H "X-Customer-Ref: fuzz"
echo "== schemathesis: the staff operations (a box-office key)"
run --include-tag staff -H "Authorization: Bearer $office"
# Stripe is configured (at an address nothing answers): every webhook the
# fuzzer makes up is unsigned by its secret.
echo "== schemathesis: the payment provider's webhook"
run --include-tag payments --phases examples,coverage,fuzzing
echo "== (Schemathesis' \"N warnings\" above are advice about test data, such as operations that"
echo "   mostly answered 404 to made-up ids; a failure is listed as one, and makes this phase fail.)"
if grep -q 'panicked' "$log"; then
  echo "the app panicked during the run:" >&2
  grep -A5 'panicked' "$log" >&2
  status=1
fi
if [ $status != 0 ]; then
  echo "== the app's errors during the run" >&2
  grep -E 'ERROR' "$log" | tail -n 20 >&2
fi
exit $status
