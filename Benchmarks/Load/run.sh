#!/usr/bin/env bash
# Mixed load with 500 SSE listeners on `ridebeacon serve`, SQLite then PostgreSQL
# (RELIABILITY.md, "Load"). For each database: seed RIDES active rides
# (ServerBenchmarkSetup), start the server, hold the listeners open, send RATE req/s for
# SECONDS (open loop: bounded and self-stopping), sample the server's RSS. One JSON line per
# database goes to RESULTS; a non-zero exit means an error or a dropped listener.
#   make load         full: release, 10 000 rides, 480 + 20 listeners, 1 000 req/s, 60 s
#   make load-smoke   short: debug, 300 rides, 45 + 5 listeners, 100 req/s, 5 s
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-release}
RIDES=${RIDES:-10000}
RATE=${RATE:-1000}
SECONDS_=${SECONDS_:-60}
RIDE_LISTENERS=${RIDE_LISTENERS:-480}
DISPATCHER_LISTENERS=${DISPATCHER_LISTENERS:-20}
BACKENDS=${BACKENDS:-sqlite postgres}
PG_PORT=${LOAD_PG_PORT:-55434}
PG_DIR=${LOAD_PG_DIR:-/tmp/ridebeacon-load-pg-$PG_PORT}
RESULTS=${RESULTS:-.build/reliability/load.jsonl}
BIN=.build/$BUILD/ridebeacon
mkdir -p "$(dirname "$RESULTS")"
WORK=$(mktemp -d /tmp/rb-load-XXXXXX)
server=""
status=0
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    if [ -n "${STARTED_PG:-}" ]; then RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh stop; fi
}
trap cleanup EXIT
# 500 streams plus the request connections need more descriptors than some defaults allow.
ulimit -n 8192 2>/dev/null || true

for backend in $BACKENDS; do
    if [ "$backend" = sqlite ]; then
        database="sqlite:$WORK/load.sqlite"
    else
        base=$(RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh)
        STARTED_PG=1
        name="rb_load_$$"
        psql -q "$base" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name"
        database="${base%/*}/$name"
    fi
    eval "$(.build/$BUILD/ServerBenchmarkSetup --database "$database" --rides "$RIDES")"
    export PASSENGER_TOKEN DRIVER_TOKEN DISPATCHER_TOKEN
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # The generator holds its hundreds of listeners on a few tokens (standing in for as many
    # devices), so the per-token stream cap is raised to its maximum.
    "$BIN" serve --port "$port" --database "$database" --log-level warning --many-rides-per-account --max-streams-per-token 1000 \
        2>"$WORK/serve-$backend.log" &
    server=$!
    until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.1; done
    line=$(.build/$BUILD/ServerLoad --url "http://127.0.0.1:$port" --rate "$RATE" --seconds "$SECONDS_" \
        --ride-listeners "$RIDE_LISTENERS" --dispatcher-listeners "$DISPATCHER_LISTENERS" --server-pid "$server" \
        --label "$backend-$BUILD") || status=1
    echo "{\"backend\":\"$backend\",\"build\":\"$BUILD\",\"rides_seeded\":$RIDES,${line#\{}" | tee -a "$RESULTS"
    kill "$server"; wait "$server" 2>/dev/null || true
    server=""
done
exit $status
