#!/usr/bin/env bash
# Two `ridebeacon` binaries in turn against one seeded PostgreSQL database: the write path
# (request -> accept -> arrive) and a ride GET with wrk, three rounds (BENCHMARKS.md, "Issue 14,
# third round"). Usage: Benchmarks/server/ab-postgres-writes.sh OLD_BINARY NEW_BINARY
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY" >&2; exit 2; }
old=$1 new=$2
cd "$(dirname "$0")/../.."
PG_PORT=${RIDEBEACON_BENCH_PG_PORT:-55436}; PG_DIR=/tmp/ridebeacon-bench-pg-$PG_PORT
base=$(RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh)
name=rb_ab_$$; psql -q "$base" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name"
database="${base%/*}/$name"
eval "$(.build/release/ServerBenchmarkSetup --database "$database" --rides 10000)"
export RB_RIDE_ID=$RIDE_ID RB_PASSENGER_TOKEN=$PASSENGER_TOKEN RB_DRIVER_TOKEN=$DRIVER_TOKEN RB_DISPATCHER_TOKEN=$DISPATCHER_TOKEN
for round in 1 2 3; do
    for which in old new; do
        bin=$old; [ "$which" = new ] && bin=$new
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        "$bin" serve --port "$port" --database "$database" --bench-routes --many-rides-per-account --log-level warning 2>/dev/null &
        pid=$!
        until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.1; done
        for mode in write get; do
            echo "$round $which $mode $(RB_MODE=$mode wrk -t2 -c32 -d10s -s Benchmarks/server/ride.lua "http://127.0.0.1:$port" | tail -1)"
        done
        kill $pid; wait $pid 2>/dev/null || true
    done
done
