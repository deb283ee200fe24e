#!/usr/bin/env bash
# Closed-loop ride transitions against pgbench on the same PostgreSQL database (issue 28):
# one release server, wrk's write mix (request -> accept -> arrive, each a transition; no other
# traffic) for SECONDS_, then pgbench's built-in simple-update (after `pgbench -i`) on the same
# database for as long. Prints one JSON line: transitions/s, pgbench tps, their ratio, and the
# CPU each side used per transition/transaction (server and PostgreSQL, from /proc).
#   Benchmarks/Load/write-ratio.sh      (BUILD_DIR=.build/release SECONDS_=30 CONNECTIONS=32 WRK_THREADS=2 PGBENCH_CLIENTS=8)
# BUILD_DIR holds the `ridebeacon` and `ServerBenchmarkSetup` measured (a directory of copies
# measures an older build: its setup migrates the database only as far as that build knows).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-.build/release}
SECONDS_=${SECONDS_:-30}
CONNECTIONS=${CONNECTIONS:-32}
WRK_THREADS=${WRK_THREADS:-2}
PGBENCH_CLIENTS=${PGBENCH_CLIENTS:-8}
PG_PORT=${LOAD_PG_PORT:-55442}
PG_DIR=${LOAD_PG_DIR:-/tmp/ridebeacon-load-pg-$PG_PORT}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
WORK=$(mktemp -d /tmp/rb-ratio-XXXXXX)
server=""
cleanup() {
    [ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; }
    RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh stop
}
trap cleanup EXIT
base=$(RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh)
name=rb_ratio_$$
psql -q "$base" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name"
database="${base%/*}/$name"
eval "$($BUILD_DIR/ServerBenchmarkSetup --database "$database" --rides 1000 2>/dev/null)"
export RB_RIDE_ID=$RIDE_ID RB_PASSENGER_TOKEN=$PASSENGER_TOKEN RB_DRIVER_TOKEN=$DRIVER_TOKEN RB_DISPATCHER_TOKEN=$DISPATCHER_TOKEN
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BUILD_DIR/ridebeacon" serve --port "$port" --database "$database" --many-rides-per-account --log-level notice ${SERVE_ARGS:-} 2>"$WORK/serve.log" &
server=$!
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.1; done
master=$(head -1 "$PG_DIR/data/postmaster.pid")
s0=$(python3 Benchmarks/Load/cpu_seconds.py "$server"); p0=$(python3 Benchmarks/Load/cpu_seconds.py --tree "$master")
ours=$(RB_MODE=write wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${SECONDS_}s" -s Benchmarks/server/ride.lua "http://127.0.0.1:$port" | tail -1)
s1=$(python3 Benchmarks/Load/cpu_seconds.py "$server"); p1=$(python3 Benchmarks/Load/cpu_seconds.py --tree "$master")
kill "$server"; wait "$server" 2>/dev/null || true; server=""
"$PG_BIN/pgbench" -i -q "$database" >/dev/null 2>&1
p2=$(python3 Benchmarks/Load/cpu_seconds.py --tree "$master")
"$PG_BIN/pgbench" -n -b simple-update -T "$SECONDS_" -c "$PGBENCH_CLIENTS" -j 2 "$database" >"$WORK/pgbench.log" 2>&1
p3=$(python3 Benchmarks/Load/cpu_seconds.py --tree "$master")
tps=$(awk '/^tps = / {print $3; exit}' "$WORK/pgbench.log")
python3 - "$ours" "$tps" "$s0" "$s1" "$p0" "$p1" "$p2" "$p3" "$CONNECTIONS" "$PGBENCH_CLIENTS" "$WORK/serve.log" <<'PY'
import json, re, sys
ours, tps = json.loads(sys.argv[1]), float(sys.argv[2])
s0, s1 = json.loads(sys.argv[3])[0], json.loads(sys.argv[4])[0]
p0, p1, p2, p3 = map(float, sys.argv[5:9])
n = ours["requests"]
trips = {}
for line in open(sys.argv[11], errors="replace"):
    if "round trips at close" in line:
        trips = {k: round(int(t) / int(c), 2) for k, c, t in re.findall(r"([\w-]+)=(\d+)/(\d+)", line) if int(c)}
print(json.dumps({
    "wrk_connections": int(sys.argv[9]), "transitions": n, "non2xx": ours["non2xx"], "socket_errors": ours["socket_errors"],
    "transitions_per_s": ours["rps"], "p50_ms": ours["p50_ms"], "p99_ms": ours["p99_ms"],
    "server_cpu_us_per_transition": round((s1 - s0) * 1e6 / n, 1), "postgres_cpu_us_per_transition": round((p1 - p0) * 1e6 / n, 1),
    "pgbench_clients": int(sys.argv[10]), "pgbench_simple_update_tps": round(tps, 1),
    "postgres_cpu_us_per_pgbench_transaction": round((p3 - p2) * 1e6 / (tps * float(ours["seconds"])), 1) if tps else None,
    "ratio_transitions_over_pgbench_tps": round(ours["rps"] / tps, 3) if tps else None,
    "round_trips_per_call": trips,
}, sort_keys=True))
PY
