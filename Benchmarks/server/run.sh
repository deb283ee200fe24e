#!/usr/bin/env bash
# Ride server throughput and latency with wrk on loopback; BENCHMARKS.md, "Ride server".
# For each database: seed 10 000 active rides, start `ridebeacon serve --bench-routes`, then
# measure with the same wrk settings: Hummingbird's bare hello world, GET one ride, the
# dispatcher listing (first page, limit=50) and the request -> accept -> arrive write path;
# closed-loop (as fast as it goes) and paced at ~1 000 req/s (p99 at a fixed rate).
# `make bench-server` builds the release binaries and runs this.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Where the built products are (another scratch path: BUILD_DIR=/tmp/x/release).
BUILD_DIR=${BUILD_DIR:-.build/release}
BIN=$BUILD_DIR/ridebeacon
SETUP=$BUILD_DIR/ServerBenchmarkSetup
DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
RIDES=${RIDES:-10000}
PG_PORT=${RIDEBEACON_BENCH_PG_PORT:-55436}
PG_DIR=/tmp/ridebeacon-bench-pg-$PG_PORT
BACKENDS=${BACKENDS:-sqlite postgres}
WORK=$(mktemp -d /tmp/rb-bench-XXXXXX)
RESULTS=${RESULTS:-.build/bench-server/results.jsonl}
mkdir -p "$(dirname "$RESULTS")"
: > "$RESULTS"
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    if [ -n "${STARTED_PG:-}" ]; then RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh stop; fi
}
trap cleanup EXIT

measure() { # backend name mode connections [pace_ms]
    local backend=$1 name=$2 mode=$3 connections=$4 pace=${5:-}
    local line
    line=$(RB_MODE=$mode RB_PACE_MS=$pace wrk -t"$THREADS" -c"$connections" -d"$DURATION" -s Benchmarks/server/ride.lua \
        "http://127.0.0.1:$port" | tail -1)
    echo "{\"backend\":\"$backend\",\"case\":\"$name\",\"connections\":$connections,\"pace_ms\":\"$pace\",${line#\{}" | tee -a "$RESULTS"
}

for backend in $BACKENDS; do
    if [ "$backend" = sqlite ]; then
        database="sqlite:$WORK/bench.sqlite"
    else
        base=$(RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh)
        STARTED_PG=1
        name="rb_bench_$$"
        psql -q "$base" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name"
        database="${base%/*}/$name"
    fi
    eval "$("$SETUP" --database "$database" --rides "$RIDES")"
    export RB_RIDE_ID=$RIDE_ID RB_PASSENGER_TOKEN=$PASSENGER_TOKEN RB_DRIVER_TOKEN=$DRIVER_TOKEN RB_DISPATCHER_TOKEN=$DISPATCHER_TOKEN
    # --log-level warning: an info access-log line per request would be the main cost measured.
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$BIN" serve --port "$port" --database "$database" --bench-routes --many-rides-per-account --log-level warning 2>"$WORK/serve-$backend.log" &
    server=$!
    until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.1; done
    wrk -t1 -c4 -d2s "http://127.0.0.1:$port/bench/hello" >/dev/null  # warm-up
    for mode in hello get list write; do
        measure "$backend" "$mode" "$mode" "$CONNECTIONS"
    done
    # ~1 000 req/s: 10 connections, each sending one request every 10 ms.
    for mode in hello get list write; do
        measure "$backend" "$mode@1000/s" "$mode" 10 10
    done
    kill "$server"; wait "$server" 2>/dev/null || true
    server=""
done
python3 Benchmarks/server/table.py "$RESULTS"
