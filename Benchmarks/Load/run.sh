#!/usr/bin/env bash
# Mixed load with 500 SSE listeners on `ridebeacon serve`: one server on SQLite, then
# PG_SERVERS servers on one PostgreSQL (RELIABILITY.md, "Load"). For each database: seed RIDES
# active rides (ServerBenchmarkSetup), start the servers, hold the listeners open, send RATE
# req/s in all for SECONDS (open loop, latency from the scheduled send time; bounded and
# self-stopping), sample the servers' RSS. One JSON line per database goes to RESULTS; a
# non-zero exit means an error or a dropped listener. Issue 28: each line also has the CPU
# time per answered request of each server and of PostgreSQL (all its processes), from /proc
# over the whole run (Benchmarks/Load/cpu_seconds.py), the store's round trips per operation
# (each server logs its counts when it stops), and pgbench's built-in simple-update on the
# same database for the same length, with our transitions/s over pgbench's tps (PGBENCH=0
# skips it; PGBENCH_CLIENTS, default 8).
#   make load         full: release, 10 000 rides, 480 + 20 listeners, 1 000 req/s, 60 s
#   make load-soak    PostgreSQL only, two servers, 10 minutes, marks at 0, 5 and 10 min
#   make load-smoke   short: debug, 300 rides, 45 + 5 listeners, 100 req/s, 5 s
# MIX=read-mostly: issue 39's simple mix instead of the lifecycle (ServerLoad --mix).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-release}
RIDES=${RIDES:-10000}
RATE=${RATE:-1000}
SECONDS_=${SECONDS_:-60}
RIDE_LISTENERS=${RIDE_LISTENERS:-480}
DISPATCHER_LISTENERS=${DISPATCHER_LISTENERS:-20}
BACKENDS=${BACKENDS:-sqlite postgres}
# Servers sharing the PostgreSQL database, the load spread round-robin across them.
PG_SERVERS=${PG_SERVERS:-2}
# Seconds into the run at which to record each server's RSS and sockets and PostgreSQL's
# backends (the soak: MARKS="0 300 600"). MAX_IN_FLIGHT caps requests in flight (and so the
# request connections the generator opens).
MARKS=${MARKS:-}
PGBENCH=${PGBENCH:-1}
PGBENCH_CLIENTS=${PGBENCH_CLIENTS:-8}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
PG_PORT=${LOAD_PG_PORT:-55434}
PG_DIR=${LOAD_PG_DIR:-/tmp/ridebeacon-load-pg-$PG_PORT}
RESULTS=${RESULTS:-.build/reliability/load.jsonl}
# Where the built products are (another scratch path: BUILD_DIR=/tmp/x/release).
BUILD_DIR=${BUILD_DIR:-.build/$BUILD}
BIN=$BUILD_DIR/ridebeacon
mkdir -p "$(dirname "$RESULTS")"
WORK=$(mktemp -d /tmp/rb-load-XXXXXX)
servers=""
status=0
# The scratch directory (server logs, pgbench's) is kept only when the run fails.
cleanup() {
    local exit_status=$?
    for pid in $servers; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
    if [ -n "${STARTED_PG:-}" ]; then RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh stop; fi
    if [ "$exit_status" = 0 ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
# 500 streams plus the request connections need more descriptors than some defaults allow.
ulimit -n 8192 2>/dev/null || true

# Resident memory (MiB) and open sockets of each server, and PostgreSQL's backends on the
# load database, as one JSON object: the soak's "start / 5 min / 10 min" figures.
snapshot() {
    local at=$1 rss="" sockets="" pid
    for pid in $servers; do
        rss="$rss${rss:+,}$(awk '/VmRSS/ {printf "%.1f", $2/1024}' /proc/$pid/status 2>/dev/null || echo null)"
        sockets="$sockets${sockets:+,}$(find /proc/$pid/fd -lname 'socket:*' 2>/dev/null | wc -l)"
    done
    local backends=null
    if [ -n "${pg_name:-}" ]; then
        backends=$(psql -Atq "$base" -c "SELECT count(*) FROM pg_stat_activity WHERE datname = '$pg_name'" 2>/dev/null || echo null)
    fi
    echo "{\"at_s\":$at,\"rss_mib\":[$rss],\"server_sockets\":[$sockets],\"pg_backends\":$backends}"
}

for backend in $BACKENDS; do
    pg_name=""
    count=1
    if [ "$backend" = sqlite ]; then
        database="sqlite:$WORK/load.sqlite"
    else
        base=$(RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh)
        STARTED_PG=1
        pg_name="rb_load_$$"
        psql -q "$base" -c "DROP DATABASE IF EXISTS $pg_name" -c "CREATE DATABASE $pg_name"
        database="${base%/*}/$pg_name"
        count=$PG_SERVERS
    fi
    eval "$($BUILD_DIR/ServerBenchmarkSetup --database "$database" --rides "$RIDES")"
    export PASSENGER_TOKEN DRIVER_TOKEN DISPATCHER_TOKEN
    urls=""
    servers=""
    for n in $(seq 1 "$count"); do
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        # The generator holds its hundreds of listeners on a few tokens and posts every touch
        # proof from one address and two tokens (standing in for as many devices, each with
        # many rides), so the per-token stream cap and the touch-proof limits are raised to
        # their maximum and the one-ride-at-a-time rule is off.
        # notice: the store's round trips, logged when the server stops, are read below.
        "$BIN" serve --port "$port" --database "$database" --log-level notice --many-rides-per-account --max-streams-per-token 1000 \
            --touch-proofs-per-minute 100000 --touch-proofs-per-minute-per-address 100000 ${SERVE_ARGS:-} \
            2>"$WORK/serve-$backend-$n.log" &
        servers="$servers${servers:+ }$!"
        urls="$urls${urls:+,}http://127.0.0.1:$port"
        until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.1; done
    done
    marks_file="$WORK/marks-$backend.jsonl"
    : >"$marks_file"
    sampler=""
    if [ -n "$MARKS" ]; then
        # Marks count from the generator's start (its listeners connect first: a few seconds).
        ( previous=0; for mark in $MARKS; do sleep $((mark - previous)); previous=$mark; snapshot "$mark" >>"$marks_file"; done ) &
        sampler=$!
    fi
    pg_master=""
    [ "$backend" = postgres ] && pg_master=$(head -1 "$PG_DIR/data/postmaster.pid")
    cpu_servers_before=$(python3 Benchmarks/Load/cpu_seconds.py $servers)
    cpu_pg_before=$([ -n "$pg_master" ] && python3 Benchmarks/Load/cpu_seconds.py --tree "$pg_master" || echo null)
    line=$($BUILD_DIR/ServerLoad --url "$urls" --rate "$RATE" --seconds "$SECONDS_" ${MAX_IN_FLIGHT:+--max-in-flight "$MAX_IN_FLIGHT"} \
        --ride-listeners "$RIDE_LISTENERS" --dispatcher-listeners "$DISPATCHER_LISTENERS" --server-pid "${servers// /,}" \
        ${MIX:+--mix "$MIX"} --label "$backend-$count-$BUILD") || status=1
    [ -n "$sampler" ] && { wait "$sampler" 2>/dev/null || true; }
    cpu_servers_after=$(python3 Benchmarks/Load/cpu_seconds.py $servers)
    cpu_pg_after=$([ -n "$pg_master" ] && python3 Benchmarks/Load/cpu_seconds.py --tree "$pg_master" || echo null)
    marks=$(paste -sd, "$marks_file")
    # Stopped gracefully, each server logs its store's round trips (PostgresStore.close).
    for pid in $servers; do kill "$pid"; wait "$pid" 2>/dev/null || true; done
    servers=""
    pgbench_tps=null
    if [ "$backend" = postgres ] && [ "$PGBENCH" != 0 ]; then
        "$PG_BIN/pgbench" -i -q "$database" >"$WORK/pgbench-init.log" 2>&1
        "$PG_BIN/pgbench" -n -b simple-update -T "${SECONDS_%.*}" -c "$PGBENCH_CLIENTS" -j 2 "$database" >"$WORK/pgbench.log" 2>&1 || status=1
        pgbench_tps=$(awk '/^tps = / {print $3; exit}' "$WORK/pgbench.log")
        pgbench_tps=${pgbench_tps:-null}
    fi
    extra=$(python3 Benchmarks/Load/run_figures.py --generator "$line" --servers-before "$cpu_servers_before" --servers-after "$cpu_servers_after" \
        --pg-before "$cpu_pg_before" --pg-after "$cpu_pg_after" --pgbench-tps "$pgbench_tps" --pgbench-clients "$PGBENCH_CLIENTS" \
        --logs "$WORK"/serve-"$backend"-*.log)
    echo "{\"backend\":\"$backend\",\"build\":\"$BUILD\",\"rides_seeded\":$RIDES,\"marks\":[$marks],$extra,${line#\{}" | tee -a "$RESULTS"
done
exit $status
