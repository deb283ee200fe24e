#!/usr/bin/env bash
# The read-mostly mix (issue 39's first figure; BENCHMARKS.md, "Issue 39"): two servers on one
# PostgreSQL, 150 dispatcher streams on each (curl on /v1/events), per server wrk's ride GETs
# (4 connections, 10 ms pace) and the write path (1 connection, 20 ms pace: about 10 % of
# requests) for SECONDS_. Prints one JSON line: the servers' CPU from /proc over the wrk runs,
# per answered request. BUILD_DIR holds release ridebeacon and ServerBenchmarkSetup.
#   BUILD_DIR=.build/release Benchmarks/Load/read-mostly.sh     (SECONDS_=20 LOAD_PG_PORT=55473)
# SERVE_ARGS: more `serve` options for both servers, e.g. "--threads swift-pool".
# MIX=transitions (default, the figures of 2026-12-02): the writes are request -> accept ->
#   arrive, each an event every stream gets. MIX=issue: issue 39's own mix, ride reads (4
#   connections, 10 ms), open-request listings (1, 20 ms) and saved-place writes (1, 20 ms:
#   writes that reach no stream). MIX=hello: the same connections and pace, every request
#   Hummingbird's bare hello world (the yardstick; servers get --bench-routes).
#   STREAMS: dispatcher streams per server (150).
set -u
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-.build/release}
SECONDS_=${SECONDS_:-20}
MIX=${MIX:-transitions}
STREAMS=${STREAMS:-150}
PG_PORT=${LOAD_PG_PORT:-55473}
PG_DIR=/tmp/ridebeacon-load-pg-$PG_PORT
WORK=$(mktemp -d /tmp/rb39-rm-XXXX)
servers=""; curls=""
cleanup() {
  [ -n "$curls" ] && kill $curls 2>/dev/null
  for p in $servers; do kill $p 2>/dev/null; wait $p 2>/dev/null; done
  RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh stop >/dev/null 2>&1
  rm -rf $WORK
}
trap cleanup EXIT
ulimit -n 8192
base=$(RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=$PG_DIR scripts/test-postgres.sh)
name=rb_rm_$$
psql -q "$base" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" >/dev/null
db="${base%/*}/$name"
eval "$($BUILD_DIR/ServerBenchmarkSetup --database "$db" --rides 2000 2>/dev/null)"
export RB_RIDE_ID=$RIDE_ID RB_PASSENGER_TOKEN=$PASSENGER_TOKEN RB_DRIVER_TOKEN=$DRIVER_TOKEN RB_DISPATCHER_TOKEN=$DISPATCHER_TOKEN
ports=""
for n in 1 2; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  $BUILD_DIR/ridebeacon serve --port $port --database "$db" --log-level warning --many-rides-per-account --max-streams-per-token 1000 $([ "$MIX" = hello ] && echo --bench-routes) ${SERVE_ARGS:-} 2>$WORK/serve-$n.log &
  servers="$servers $!"; ports="$ports $port"
  until curl -sf http://127.0.0.1:$port/health >/dev/null; do sleep 0.1; done
  for s in $(seq 1 $STREAMS); do
    curl -sN -H "Authorization: Bearer $DISPATCHER_TOKEN" http://127.0.0.1:$port/v1/events -o /dev/null &
    curls="$curls $!"
  done
done
sleep 3
c0=$(python3 Benchmarks/Load/cpu_seconds.py $servers)
wrks=""
for port in $ports; do
  reads=get; [ "$MIX" = hello ] && reads=hello
  RB_MODE=$reads RB_PACE_MS=10 wrk -t1 -c4 -d${SECONDS_}s -s Benchmarks/server/ride.lua http://127.0.0.1:$port 2>/dev/null | tail -1 > $WORK/get-$port.json &
  wrks="$wrks $!"
  if [ "$MIX" = hello ]; then
    RB_MODE=hello RB_PACE_MS=20 wrk -t1 -c2 -d${SECONDS_}s -s Benchmarks/server/ride.lua http://127.0.0.1:$port 2>/dev/null | tail -1 > $WORK/open-$port.json &
  elif [ "$MIX" = issue ]; then
    RB_MODE=open RB_PACE_MS=20 wrk -t1 -c1 -d${SECONDS_}s -s Benchmarks/server/ride.lua http://127.0.0.1:$port 2>/dev/null | tail -1 > $WORK/open-$port.json &
    wrks="$wrks $!"
    RB_MODE=place RB_PACE_MS=20 wrk -t1 -c1 -d${SECONDS_}s -s Benchmarks/server/ride.lua http://127.0.0.1:$port 2>/dev/null | tail -1 > $WORK/write-$port.json &
  else
    RB_MODE=write RB_PACE_MS=20 wrk -t1 -c1 -d${SECONDS_}s -s Benchmarks/server/ride.lua http://127.0.0.1:$port 2>/dev/null | tail -1 > $WORK/write-$port.json &
  fi
  wrks="$wrks $!"
done
wait $wrks
c1=$(python3 Benchmarks/Load/cpu_seconds.py $servers)
python3 - "$c0" "$c1" $WORK "$MIX" "$STREAMS" "${SERVE_ARGS:-}" <<'PY'
import json, sys, glob
c0, c1 = json.loads(sys.argv[1]), json.loads(sys.argv[2])
runs = {}
for path in glob.glob(sys.argv[3] + "/*.json"):
    try: runs[path.rsplit("/",1)[1]] = json.loads(open(path).read())
    except Exception: pass
n = sum(r["requests"] for r in runs.values())
bad = sum(r.get("non2xx", 0) + r.get("socket_errors", 0) for r in runs.values())
gets = [r for k, r in runs.items() if k.startswith("get")]
writes = sum(r["requests"] for k, r in runs.items() if k.startswith("write"))
cpu = sum(b - a for a, b in zip(c0, c1))
print(json.dumps({"mix": sys.argv[4], "streams": int(sys.argv[5]), "serve_args": sys.argv[6], "requests": n, "errors": bad, "write_share": round(writes / n, 3) if n else None,
                  "req_per_s": round(sum(r["rps"] for r in runs.values()), 1),
                  "get_p99_ms": max((r["p99_ms"] for r in gets), default=None),
                  "server_cpu_s": round(cpu, 2), "server_cpu_us_per_request": round(cpu * 1e6 / n, 1) if n else None}))
PY
