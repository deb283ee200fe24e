#!/usr/bin/env python3
"""Issue 28's figures for one load run (Benchmarks/Load/run.sh): CPU per answered request of
each server and of PostgreSQL, round trips per operation from the servers' stop logs, and our
transitions/s over pgbench's simple-update tps. Prints JSON object members (no braces) for
run.sh to splice into its line."""
import argparse
import json
import re

# The generator's writes: each is one ride transition.
TRANSITIONS = ("create", "accept", "arrive", "touch")

p = argparse.ArgumentParser()
p.add_argument("--generator", required=True, help="ServerLoad's JSON line")
p.add_argument("--servers-before", required=True)
p.add_argument("--servers-after", required=True)
p.add_argument("--pg-before", default="null")
p.add_argument("--pg-after", default="null")
p.add_argument("--pgbench-tps", default="null")
p.add_argument("--pgbench-clients", type=int, default=0)
p.add_argument("--logs", nargs="*", default=[])
a = p.parse_args()

try:
    run = json.loads(a.generator)
except json.JSONDecodeError:
    run = {}
answered = run.get("answered") or 0
seconds = run.get("seconds") or 0
out = {}

def per_request_us(seconds_used):
    return round(seconds_used * 1e6 / answered, 1) if answered else None

before, after = json.loads(a.servers_before), json.loads(a.servers_after)
out["cpu_s_servers"] = [round(y - x, 2) for x, y in zip(before, after)]
out["cpu_us_per_request_servers"] = [per_request_us(y - x) for x, y in zip(before, after)]
if a.pg_before != "null" and a.pg_after != "null":
    used = float(a.pg_after) - float(a.pg_before)
    out["cpu_s_postgres"] = round(used, 2)
    out["cpu_us_per_request_postgres"] = per_request_us(used)

# {"round_trips": "total=N accept=calls/trips ..."} in each server's JSON log line.
totals = {}
for path in a.logs:
    with open(path, errors="replace") as f:
        for line in f:
            if "round trips at close" not in line:
                continue
            for name, calls, trips in re.findall(r"([\w-]+)=(\d+)/(\d+)", line):
                t = totals.setdefault(name, [0, 0])
                t[0] += int(calls)
                t[1] += int(trips)
if totals:
    out["round_trips_per_call"] = {name: round(t[1] / t[0], 2) for name, t in sorted(totals.items()) if t[0]}
    out["round_trip_calls"] = {name: t[0] for name, t in sorted(totals.items())}

ops = run.get("per_operation", {})
transitions = sum(ops.get(name, {}).get("n", 0) for name in TRANSITIONS)
if seconds:
    out["transitions_per_s"] = round(transitions / seconds, 1)
if a.pgbench_tps != "null":
    tps = float(a.pgbench_tps)
    out["pgbench_simple_update_tps"] = tps
    out["pgbench_clients"] = a.pgbench_clients
    if seconds and tps:
        out["transitions_over_pgbench_tps"] = round(transitions / seconds / tps, 3)

print(json.dumps(out, sort_keys=True)[1:-1])
