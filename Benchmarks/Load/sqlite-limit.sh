#!/usr/bin/env bash
# SQLite at its limit (issue 39): the highest open-loop rate one server on the default store
# (SQLite, synchronous = FULL, group commit) holds at p99 <= 50 ms with nothing unsent, 300
# streams open (280 ride streams, 20 dispatchers) and make load's mix (per 20 requests 8 ride
# reads, 2 ride listings, 2 request listings and 8 writes: request, accept, arrive, touch
# proofs), beside the anchor: sqlite3's own rate of one-row insert transactions in WAL mode
# with synchronous = FULL, in a file on the same disk (one fsync each, as the store's commit).
# Prints one JSON line per rate and a last line with the limit and the anchor.
#   BUILD_DIR=.build/release Benchmarks/Load/sqlite-limit.sh   (RATES="100 200 400 600 800" SECONDS_=20 RIDES=3000)
set -u
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-.build/release}
RATES=${RATES:-100 200 400 600 800}
SECONDS_=${SECONDS_:-20}
RIDES=${RIDES:-3000}
INSERTS=${INSERTS:-2000}
WORK=$(mktemp -d /tmp/rb39-sqlite-XXXX)
trap 'rm -rf $WORK' EXIT

# The anchor, in the directory run.sh puts its database in (mktemp under /tmp: the same disk).
python3 - "$WORK/anchor.sqlite" "$INSERTS" > $WORK/anchor.json <<'PY'
import json, subprocess, sys, time
path, n = sys.argv[1], int(sys.argv[2])
setup = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);\n"
subprocess.run(["sqlite3", path], input=setup, text=True, check=True, capture_output=True)
# Each INSERT outside BEGIN is its own transaction: one commit and one WAL fsync each.
script = "PRAGMA synchronous=FULL;\n" + "".join(f"INSERT INTO t(v) VALUES('row {i} of the anchor');\n" for i in range(n))
start = time.monotonic()
subprocess.run(["sqlite3", path], input=script, text=True, check=True, capture_output=True)
seconds = time.monotonic() - start
print(json.dumps({"anchor": "sqlite3 one-row insert transactions, WAL, synchronous=FULL", "inserts": n,
                  "seconds": round(seconds, 2), "inserts_per_s": round(n / seconds, 1)}))
PY
cat $WORK/anchor.json
: > $WORK/rates.jsonl
for rate in $RATES; do
  line=$(BACKENDS=sqlite RIDES=$RIDES RATE=$rate SECONDS_=$SECONDS_ RIDE_LISTENERS=280 DISPATCHER_LISTENERS=20 BUILD_DIR=$BUILD_DIR \
         RESULTS=$WORK/results.jsonl Benchmarks/Load/run.sh 2>/dev/null | grep -v '^{"at_s"' | tail -1)
  python3 - "$rate" "$line" <<'PY' | tee -a $WORK/rates.jsonl
import json, sys
rate, line = int(sys.argv[1]), sys.argv[2]
try: d = json.loads(line)
except Exception: print(json.dumps({"rate": rate, "failed": True})); sys.exit()
writes = sum(v["n"] for k, v in d["per_operation"].items() if k in ("create", "accept", "arrive", "touch"))
print(json.dumps({"rate": rate, "p50_ms": d["p50_ms"], "p99_ms": d["p99_ms"], "answered": d["answered"], "offered": d["offered"],
                  "not_sent": d["not_sent_backlog"], "errors": d["errors"], "listeners_cut": d["listener_failures"],
                  "write_share": round(writes / max(d["answered"], 1), 3), "writes_per_s": round(writes / d["seconds"], 1),
                  "server_cpu_us_per_request": d["cpu_us_per_request_servers"][0]}))
PY
done
python3 - $WORK/anchor.json $WORK/rates.jsonl <<'PY'
import json, sys
anchor = json.load(open(sys.argv[1]))
rates = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
held = [r for r in rates if not r.get("failed") and r["p99_ms"] <= 50 and r["not_sent"] == 0 and r["errors"] == 0 and r["listeners_cut"] == 0]
best = max(held, key=lambda r: r["rate"]) if held else None
print(json.dumps({"limit_rate": best["rate"] if best else None, "limit_writes_per_s": best["writes_per_s"] if best else None,
                  "anchor_inserts_per_s": anchor["inserts_per_s"],
                  "writes_over_anchor": round(best["writes_per_s"] / anchor["inserts_per_s"], 3) if best else None}))
PY
