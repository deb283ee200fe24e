#!/usr/bin/env bash
# Before/after of the event fan-out in one run (RELIABILITY.md, "Issue 14"): SQLite, STREAMS
# (300) dispatcher streams on /v1/events read by curl, then wrk's write path (ride.lua) for 10 s,
# on two builds: BEFORE_DIR and AFTER_DIR each hold ridebeacon and ServerBenchmarkSetup.
#   BEFORE_DIR=/tmp/before AFTER_DIR=.build/debug scripts/fanout-before-after.sh
set -u
cd "$(dirname "$0")/.."
BEFORE_DIR=${BEFORE_DIR:?a directory with the baseline ridebeacon and ServerBenchmarkSetup}
AFTER_DIR=${AFTER_DIR:-.build/debug}
for side in before after; do
  bin=$BEFORE_DIR; [ "$side" = after ] && bin=$AFTER_DIR
  dir=$(mktemp -d /tmp/rb-fo2-XXXX)
  db="sqlite:$dir/load.sqlite"
  eval "$($bin/ServerBenchmarkSetup --database "$db" --rides 500 2>/dev/null)"
  export RB_RIDE_ID=$RIDE_ID RB_PASSENGER_TOKEN=$PASSENGER_TOKEN RB_DRIVER_TOKEN=$DRIVER_TOKEN RB_DISPATCHER_TOKEN=$DISPATCHER_TOKEN
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  $bin/ridebeacon serve --port $port --database "$db" --log-level warning --max-streams-per-token 1000 2>$dir/serve.log &
  pid=$!
  until curl -sf http://127.0.0.1:$port/health >/dev/null; do sleep 0.1; done
  curls=""
  for n in $(seq 1 ${STREAMS:-300}); do
    curl -sN -H "Authorization: Bearer $DISPATCHER_TOKEN" http://127.0.0.1:$port/v1/events -o $dir/stream-$n.txt &
    curls="$curls $!"
  done
  sleep 5
  line=$(RB_MODE=write wrk -t1 -c4 -d10s -s Benchmarks/server/ride.lua http://127.0.0.1:$port | tail -1)
  sleep 2
  delivered=$(cat $dir/stream-*.txt | grep -c '^event: ')
  echo "{\"side\":\"$side\",\"streams\":${STREAMS:-300},\"events_delivered\":$delivered,${line#\{}"
  kill $curls 2>/dev/null
  kill $pid; wait $pid 2>/dev/null
done
