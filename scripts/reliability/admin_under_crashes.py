#!/usr/bin/env python3
"""`ridebeacon admin` commands against a PostgreSQL that is crashed and started again under them
must each end promptly: done, or one sentence saying the database did not answer.

Found by the durability smoke: an `admin confirm-ride` that started just before the database
crashed hung for its whole 120 s timeout. PostgresNIO's pool, refused with "the database system
is starting up" while reconnecting, never handed the waiting migration check a connection, and
that check ran under the migration's 300 s deadline. Now only real schema changes get that
long; finding the schema current gets the ordinary 5 s, and closing the store is bounded too.
Before the fix this script met 2 hung commands in 6 crashes (of ~250 commands); the hang needs
a command to start in the instant the database goes away, so no run is sure to meet it.

    admin_under_crashes.py --crashes 6     (RIDEBEACON_RELIABILITY_PG_PORT, default 55433)
Exits non-zero when any command took longer than --limit seconds or failed otherwise."""

import argparse
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import REPO, Postgres, admin  # noqa: E402

# What a command may say when the database is away (the store's sentences, any case).
AWAY = ("did not answer", "database", "connect", "unavailable")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(REPO, ".build/debug/ridebeacon"))
    parser.add_argument("--crashes", type=int, default=6)
    parser.add_argument("--down-seconds", type=float, default=4.0)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--limit", type=float, default=30.0, help="seconds a command may take")
    args = parser.parse_args()

    postgres = Postgres(int(os.environ.get("RIDEBEACON_RELIABILITY_PG_PORT", "55433")))
    database = postgres.create_database(postgres.start(), f"rb_admin_crashes_{os.getpid()}")
    admin(args.binary, database, "create-account", "--role", "passenger", "--name", "Ana")

    stop = threading.Event()
    lock = threading.Lock()
    finished, away, problems, longest = [0], [0], [], [0.0]

    def client():
        while not stop.is_set():
            started = time.monotonic()
            try:
                done = subprocess.run([args.binary, "admin", "list-accounts", "--database", database],
                                      capture_output=True, text=True, timeout=args.limit)
            except subprocess.TimeoutExpired:
                with lock:
                    problems.append(f"admin list-accounts still running after {args.limit:.0f} s")
                continue
            took = time.monotonic() - started
            said = done.stderr.strip().splitlines()[-1].lower() if done.stderr.strip() else ""
            with lock:
                finished[0] += 1
                longest[0] = max(longest[0], took)
                if done.returncode != 0:
                    if any(word in said for word in AWAY):
                        away[0] += 1
                    else:
                        problems.append(f"admin list-accounts exit {done.returncode}: {said}")

    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(args.crashes):
            time.sleep(1.5)
            postgres.crash()
            time.sleep(args.down_seconds)
            postgres.start()
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    ok = not problems
    print(f"admin under crashes: {'PASS' if ok else 'FAIL'}: {args.crashes} crashes, {finished[0]} commands ended "
          f"({away[0]} said the database was away), the longest took {longest[0]:.1f} s (limit {args.limit:.0f} s)")
    for problem in problems[:10]:
        print("  " + problem)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
