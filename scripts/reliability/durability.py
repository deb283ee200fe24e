#!/usr/bin/env python3
"""Crash durability of `ridebeacon serve` (RELIABILITY.md, "Durability").

Worker threads walk rides through their life over HTTP (request, accept, arrive, confirm with
`ridebeacon admin confirm-ride`, complete, or cancel at some step), every HTTP write with its
own Idempotency-Key. Meanwhile a chaos thread:
  sqlite:   kill -9s the server at random moments and restarts it; online backups run too;
  postgres: two servers on one database (distinct ports); the database is crashed
            (pg_ctl -m immediate) and started again while both keep running, and one server
            is kill -9ed and restarted.
A write with no answer, or a 503, is retried with the same key until acknowledged. Then the
database itself is read and checked (checks.py); each backup is checked and restored; on
PostgreSQL racing accepts through both servers must have exactly one winner, and a ride
written through one server must stream through the other.

    durability.py --backend sqlite --kills 3
    durability.py --backend postgres --db-restarts 2 --kills 1   (RIDEBEACON_RELIABILITY_PG_PORT)
Exits non-zero on any lost, doubled or inconsistent write."""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from after_load import check_backups, race_and_cross  # noqa: E402
from checks import confirm_outcome, verify, verify_final_states  # noqa: E402
from faults import chaos  # noqa: E402
from harness import REPO, Fatal, Postgres, Server, admin, create_account, free_port, percentile, read_database, request  # noqa: E402

RIDE_BODY = {"passengerName": "Ana", "pickup": "Main St 1", "dropoff": "Central Station"}


class Run:
    def __init__(self, args, database, servers, work):
        self.args, self.database, self.servers, self.work = args, database, servers, work
        self.binary = args.binary
        self.lock = threading.Lock()
        self.acks = []            # (time, request_id, ride_id, state)
        self.http_ack_times = []  # (sent, answered) of every acknowledged HTTP write
        self.attempts = 0
        self.unanswered = 0       # no answer at all (server killed, connection cut)
        self.unavailable = 0      # 503 answers
        self.unexpected = []      # any other answer we did not ask for
        self.requests_created = 0
        self.accepts = 0
        self.stop = threading.Event()
        self.counter = 0
        self.rng = random.Random(args.seed)

    # A write is retried until acknowledged; with a second server, each retry goes to the other.
    def write(self, index, method, path, token, expect, key, body=None):
        server_turn = index
        tries = 0
        while True:
            tries += 1
            server = self.servers[server_turn % len(self.servers)]
            with self.lock:
                self.attempts += 1
            sent = time.monotonic()
            try:
                status, answer = request(server.port, method, path, token=token, body=body, key=key)
            except OSError:
                status, answer = None, None
            except Exception:  # http.client.HTTPException: the connection died mid-answer
                status, answer = None, None
            if status in expect:
                with self.lock:
                    self.http_ack_times.append((sent, time.monotonic()))
                return status, answer
            with self.lock:
                if status is None:
                    self.unanswered += 1
                elif status == 503:
                    self.unavailable += 1
                else:
                    self.unexpected.append(f"{method} {path} -> {status} {answer}")
            if status is not None and status != 503 and tries > 3:
                raise Fatal(f"{method} {path}: {status} {answer}")
            server_turn += 1
            time.sleep(0.05 if tries < 20 else 0.25)

    def ack(self, request_id, ride_id, state):
        with self.lock:
            self.acks.append((time.monotonic(), request_id, ride_id, state))

    def confirm(self, ride_id):
        """`admin confirm-ride` has no Idempotency-Key; a retry that finds the ride already
        confirmed means an earlier attempt committed before its answer was lost."""
        while True:
            code, out, err = admin(self.binary, self.database, "confirm-ride", ride_id, check=False)
            outcome = confirm_outcome(code, err)
            if outcome == "done":
                return
            if outcome == "retry":
                with self.lock:
                    self.unavailable += 1
                time.sleep(0.1)
                continue
            raise Fatal(f"admin confirm-ride {ride_id}: {err}")

    def ride_script(self, index, passenger, driver, rng):
        tag = f"{self.args.seed}-{index}"
        _, created = self.write(index, "POST", "/v1/ride-requests", passenger, (201,), f"req-{tag}", RIDE_BODY)
        request_id = created["id"]
        with self.lock:
            self.requests_created += 1
        self.ack(request_id, None, "requested")
        fate = rng.random()
        if fate < 0.1:
            self.write(index + 1, "POST", f"/v1/ride-requests/{request_id}/cancel", passenger, (200,), f"rc-{tag}")
            self.ack(request_id, None, "cancelled")
            return
        _, ride = self.write(index + 1, "POST", f"/v1/ride-requests/{request_id}/accept", driver, (200,), f"acc-{tag}")
        with self.lock:
            self.accepts += 1
        self.ack(request_id, ride["id"], "accepted")
        ride_path = f"/v1/rides/{ride['id']}"
        if fate < 0.2:
            self.write(index, "POST", f"{ride_path}/cancel", passenger, (200,), f"pc-{tag}", {"reason": "plans changed"})
            self.ack(request_id, ride["id"], "cancelled")
            return
        self.write(index + 2, "POST", f"{ride_path}/arrive", driver, (200,), f"arr-{tag}")
        self.ack(request_id, ride["id"], "arrived")
        if fate < 0.3:
            self.write(index, "POST", f"{ride_path}/cancel", driver, (200,), f"dc-{tag}")
            self.ack(request_id, ride["id"], "cancelled")
        elif fate < 0.3 + self.args.confirm_share:
            self.confirm(ride["id"])
            self.ack(request_id, ride["id"], "confirmed")
            self.write(index + 1, "POST", f"{ride_path}/complete", driver, (200,), f"cmp-{tag}")
            self.ack(request_id, ride["id"], "completed")

    def worker(self, number, people):
        rng = random.Random(f"{self.args.seed}-{number}")
        try:
            while not self.stop.is_set():
                with self.lock:
                    index = self.counter
                    self.counter += 1
                passenger = people["passengers"][index % len(people["passengers"])]
                driver = people["drivers"][index % len(people["drivers"])]
                self.ride_script(index, passenger, driver, rng)
        except Exception as failure:  # noqa: BLE001 — any failure of a worker fails the run
            # (a command that hung past its timeout once ended a worker silently and the run passed)
            with self.lock:
                self.unexpected.append(str(failure) if isinstance(failure, Fatal) else f"{type(failure).__name__}: {failure}")
            self.stop.set()

    def first_ack_after(self, moment):
        """How long after `moment` the first write sent after it was acknowledged by a server:
        the outage as a client sees it."""
        with self.lock:
            later = [answered for sent, answered in self.http_ack_times if sent > moment]
        return (min(later) - moment) if later else None


def make_people(binary, database):
    return {
        "passengers": [create_account(binary, database, "passenger", f"Passenger {i}") for i in range(4)],
        "drivers": [create_account(binary, database, "driver", f"Driver {i}", vehicle="grey van") for i in range(4)],
        "dispatcher": create_account(binary, database, "dispatcher", "Dot"),
        "racers": [create_account(binary, database, "driver", f"Racer {i}", vehicle="red car") for i in range(2)],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--binary", default=os.path.join(REPO, ".build/debug/ridebeacon"))
    parser.add_argument("--kills", type=int, default=3, help="kill -9s of a server")
    parser.add_argument("--db-restarts", type=int, default=0, help="PostgreSQL crashes (postgres only)")
    parser.add_argument("--db-down-seconds", type=float, default=6.0)
    parser.add_argument("--backups", type=int, default=2, help="online backups under load (sqlite only)")
    parser.add_argument("--races", type=int, default=20, help="racing accept pairs (postgres only)")
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--confirm-share", type=float, default=0.3, help="share of rides confirmed with admin confirm-ride")
    parser.add_argument("--tail-seconds", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--results", help="append the JSON summary to this file")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix=f"rb-durability-{args.backend}-")
    postgres = None
    if args.backend == "sqlite":
        database = "sqlite:" + os.path.join(work, "rides.sqlite")
        server_count = 1
    else:
        postgres = Postgres(int(os.environ.get("RIDEBEACON_RELIABILITY_PG_PORT", "55433")))
        database = postgres.create_database(postgres.start(), f"rb_durability_{os.getpid()}")
        server_count = 2
    people = make_people(args.binary, database)
    servers = [Server(args.binary, database, free_port(), os.path.join(work, f"serve-{i}.log")) for i in range(server_count)]
    run = Run(args, database, servers, work)
    report, backups = [], []
    summary = {"backend": args.backend, "seed": args.seed, "work": work}
    try:
        for server in servers:
            server.start()
            server.wait_healthy()
        started = time.monotonic()
        workers = [threading.Thread(target=run.worker, args=(n, people)) for n in range(args.workers)]
        for thread in workers:
            thread.start()
        chaos(run, postgres, report, backups)
        for thread in workers:
            thread.join()
        load_seconds = time.monotonic() - started

        extra_requests = extra_rides = 0
        if server_count == 2:
            summary["many_servers"], extra_rides, extra_requests = race_and_cross(run, people)
        tables = read_database(database)
        acks = [(r, ride, s) for _, r, ride, s in run.acks]
        counts, problems = verify(tables, acks, run.requests_created + extra_requests, run.accepts + extra_rides)
        problems += verify_final_states(tables, acks)
        for item in report:
            item["first_write_acknowledged_after_s"] = round(run.first_ack_after(item.pop("_moment")) or -1, 3)
        summary.update({
            "load_seconds": round(load_seconds, 1), "http_attempts": run.attempts,
            "unanswered_attempts": run.unanswered, "answered_503": run.unavailable,
            "unexpected_answers": run.unexpected[:10], "writes": counts, "faults": report,
        })
        if backups:
            summary["backups"] = check_backups(run, backups, people)
            problems += [p for b in summary["backups"] for p in b["problems"]]
        many = summary.get("many_servers")
        if many and (many["exactly_one_winner"] != many["races"] or not many["accepted_on_a_visible_on_b"]
                     or many["stream_on_b"] != ["requested", "accepted", "arrived"]):
            problems.append(f"many servers: {many}")
        for fault in report:
            health = fault.get("health_while_down")
            if health is not None and (health.get("503", 0) == 0 or any(k not in ("503", "None") for k in health)):
                problems.append(f"while the database was down /health answered {health}, not only 503")
        if len([f for f in report if f["event"] == "kill -9 server"]) < args.kills:
            problems.append("fewer kills than asked for")
        summary["problems"] = problems[:20] + run.unexpected[:5]
    finally:
        for server in servers:
            server.stop()
    recovery = [f["healthy_after_s"] for f in report if "healthy_after_s" in f]
    if recovery:
        summary["kill_to_healthy_s"] = {"min": min(recovery), "median": percentile(recovery, 0.5), "max": max(recovery)}
    text = json.dumps(summary, sort_keys=True)
    if args.results:
        with open(args.results, "a") as f:
            f.write(text + "\n")
    print(json.dumps(summary, indent=1, sort_keys=True))
    w = summary.get("writes", {})
    ok = not summary.get("problems") and not run.unexpected
    print(f"durability {args.backend}: {'PASS' if ok else 'FAIL'}: acknowledged {w.get('acknowledged')} writes, "
          f"found {w.get('found')}; {len(report)} faults; {run.unanswered} unanswered and {run.unavailable} 503 attempts retried")
    if ok:
        shutil.rmtree(work, ignore_errors=True)  # kept (servers' logs, SQLite files) only for a failure
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
