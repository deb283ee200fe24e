"""Faults injected while the durability driver's workers write (durability.py): kill -9 of a
server, a PostgreSQL crash under running servers, online backups taken meanwhile."""

import os
import threading
import time

from harness import Fatal, admin, percentile, request


def kill_and_restart(run, server, report):
    """kill -9 now; restart at once; time until /health answers and until a client write is acknowledged."""
    killed = time.monotonic()
    server.kill9()
    server.start()
    restart = server.wait_healthy()
    report.append({"event": "kill -9 server", "port": server.port, "healthy_after_s": round(time.monotonic() - killed, 3),
                   "startup_s": round(restart, 3), "_moment": killed})


def crash_database(run, postgres, report):
    """The database dies under running servers: they must answer 503, then recover alone."""
    crashed = time.monotonic()
    postgres.crash()
    statuses, latencies = [], []
    down_until = crashed + run.args.db_down_seconds

    def probe(server):
        # One prober per server: an answer can take the store's whole operation deadline.
        while time.monotonic() < down_until:
            asked = time.monotonic()
            try:
                status = request(server.port, "GET", "/health", timeout=10)[0]
            except Exception:
                status = None
            with run.lock:
                statuses.append(status)
                latencies.append(time.monotonic() - asked)
            time.sleep(0.1)
    probers = [threading.Thread(target=probe, args=(s,)) for s in run.servers]
    for thread in probers:
        thread.start()
    for thread in probers:
        thread.join()
    postgres.start()
    back = time.monotonic()
    for server in run.servers:
        server.wait_healthy(timeout=60)
    healthy = time.monotonic() - back
    report.append({"event": "database crash", "down_s": round(back - crashed, 2),
                   "health_while_down": {str(s): statuses.count(s) for s in sorted(set(statuses), key=str)},
                   "health_answer_while_down_s": {"median": round(percentile(latencies, 0.5), 3), "max": round(max(latencies), 3)},
                   "all_servers_healthy_after_s": round(healthy, 3), "_moment": back})


def backup_now(run, number, results):
    target = os.path.join(run.work, f"backup-{number}.sqlite")
    with run.lock:
        acked_before = list(run.acks)
    started = time.monotonic()
    admin(run.binary, run.database, "backup", "--to", target)
    results.append({"file": target, "acked_before": acked_before, "seconds": round(time.monotonic() - started, 3)})


def chaos(run, postgres, report, backups):
    rng = run.rng
    try:
        time.sleep(rng.uniform(0.5, 1.5))
        backup_threads = []
        for n in range(max(run.args.kills, run.args.db_restarts)):
            if postgres is not None and n < run.args.db_restarts:
                crash_database(run, postgres, report)
                time.sleep(rng.uniform(0.5, 1.5))
            if n < run.args.kills:
                if postgres is None and n < run.args.backups:
                    thread = threading.Thread(target=backup_now, args=(run, n, backups))
                    thread.start()
                    backup_threads.append(thread)
                time.sleep(rng.uniform(0.2, 1.2))
                kill_and_restart(run, run.servers[n % len(run.servers)], report)
                time.sleep(rng.uniform(0.3, 1.5))
        for thread in backup_threads:
            thread.join()
        time.sleep(run.args.tail_seconds)
    except Fatal as failure:
        with run.lock:
            run.unexpected.append(str(failure))
    finally:
        run.stop.set()
