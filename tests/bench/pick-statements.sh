#!/bin/bash
# Counts the SQL statements one pick costs (the htmx form and the JSON
# API), from PostgreSQL's own statement log (log_statement = all), on the
# embedded cluster of a throwaway data folder. Prints numbers, asserts
# nothing. The live feed's own connection (application_name seatmap-live,
# polling every 50 ms) is left out. Statements sent together count one
# each here; tests/it/budgets.rs counts round trips on the wire instead.
# Usage: tests/bench/pick-statements.sh [BINARY [LABEL]]
# (default target/debug/seatmap; build it first with cargo build).
set -u
bin=${1:-target/debug/seatmap}; label=${2:-now}
data=/tmp/rt-$label; rm -rf $data; mkdir -p $data; chmod 755 $data
port=3901
SEATMAP_DATA_DIR=$data SEATMAP_ADDR=127.0.0.1:$port RUST_LOG=warn $bin > $data/app.out 2>&1 &
app=$!
for i in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:$port/healthz && break; sleep 0.5; done
sock=$data/pgdata
psql() { command psql -h $sock -U postgres -d seatmap -qtAX "$@"; }
psql -c "ALTER SYSTEM SET log_statement = 'all'" -c "ALTER SYSTEM SET log_line_prefix = '%a '" \
  -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
ev=$(psql -c "SELECT min(id) FROM events")
seats=($(psql -c "SELECT id FROM seats WHERE event_id = $ev AND status = 'AVAILABLE' ORDER BY id LIMIT 4"))
jar=$data/jar; base=http://127.0.0.1:$port
page=$(curl -s -c $jar -b $jar $base/events/$ev)
csrf=$(echo "$page" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//;s/"//')
log=$sock/server.log
count() { # statements logged between the two markers
  awk '/rt-marker-begin/{on=1;next} /rt-marker-end/{on=0} on && /LOG:  (statement|execute)/ && !/^seatmap-live /' $log | wc -l
}
# (A statement's continuation lines start with a tab and belong to the
# entry above them, the feed's too.)
show() { awk '/rt-marker-begin/{on=1;next} /rt-marker-end/{on=0} !/^\t/{feed=/^seatmap-live /} on && !feed' $log | grep -v "DETAIL" | cut -c1-140; }
pick() { # $1 seat, $2 htmx|api
  : > $log.mark
  psql -c "SELECT 'rt-marker-begin'" >/dev/null
  if [ $2 = htmx ]; then
    curl -s -o /dev/null -w "%{http_code} " -c $jar -b $jar -H 'HX-Request: true' -H "Origin: $base" \
      --data-urlencode "csrf=$csrf" --data-urlencode "hold=$1" $base/events/$ev/seats
  else
    curl -s -o /dev/null -w "%{http_code} " -c $jar -b $jar -H 'content-type: application/json' -H "Origin: $base" \
      -d "{\"seat_ids\":[$1]}" $base/api/events/$ev/holds
  fi
  sleep 0.3
  psql -c "SELECT 'rt-marker-end'" >/dev/null
}
pick ${seats[0]} htmx >/dev/null   # warm: opens the hold, prepares statements
: > $log
pick ${seats[1]} htmx; echo "$label htmx pick (hold already open): $(count) statements"; show > $data/htmx.txt
: > $log
pick ${seats[2]} api; echo "$label api pick (hold already open): $(count) statements"; show > $data/api.txt
kill $app; wait $app 2>/dev/null
echo "statements, in order: $data/htmx.txt and $data/api.txt"
