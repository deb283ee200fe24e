#!/usr/bin/env python3
"""Power loss under `ridebeacon serve` (RELIABILITY.md, "Power loss").

The database lives on powerfs (powerfs.py: a FUSE mount that forgets whatever was not fsync'd
when the power is cut). Worker threads walk rides through the API (request, accept, arrive,
cancel at some step), each write with its own Idempotency-Key, and record every acknowledged
write. Each cycle cuts the power at a random moment:
  load        a random instant under load (mid group commit / mid PostgreSQL commit);
  checkpoint  armed at a random write into the main database file (SQLite: while checkpoints
              run; PostgreSQL: into base/ while CHECKPOINT runs);
  migration   armed at a random operation of a second server migrating a new database;
  backup      (SQLite) at a random moment of `admin backup` into the mount.
Then everything on the mount is killed (as the power cut would), the mount is remounted (a
fresh kernel cache), the database (PostgreSQL) and server restarted, and checked:
  every acknowledged write is there exactly once; no history has a gap, repeat or illegal step;
  a ride's state is its last event's; no request became two rides; an interrupted write, retried
  later with its key, lands once; SQLite's integrity_check passes; a migrated database serves;
  a backup that `admin backup` acknowledged exists and is whole; the server starts, or refuses
  with a message (recorded; any refusal fails the run).
Unanswered writes are retried with their key in the next cycle.

    power_loss.py --backend sqlite --cuts 200
    power_loss.py --backend postgres --cuts 200 [--pg-port 55435]
    power_loss.py --backend sqlite --synchronous NORMAL --expect-loss --cuts 20   (negative control)
    power_loss.py --backend postgres --fsync off --expect-loss --cuts 10         (negative control)
Exits non-zero on any lost or inconsistent write (with --expect-loss: when no write was lost).
Run as root (FUSE mount for the PostgreSQL user too)."""

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import powerfs  # noqa: E402
from checks import verify  # noqa: E402
from harness import REPO, Fatal, admin, create_account, free_port, read_database, request  # noqa: E402

RIDE_BODY = {"passengerName": "Ana", "pickup": "Main St 1", "dropoff": "Central Station"}


class Ride:
    """One ride's script: its steps run in order; an unanswered step is retried with its key."""

    def __init__(self, tag, passenger, driver, rng):
        self.tag, self.passenger, self.driver = tag, passenger, driver
        fate = rng.random()
        self.plan = (["create", "cancel-request"] if fate < 0.15 else
                     ["create", "accept", "passenger-cancel"] if fate < 0.3 else
                     ["create", "accept", "arrive", "driver-cancel"] if fate < 0.45 else
                     ["create", "accept", "arrive"])
        self.step = 0
        self.request_id = self.ride_id = None
        self.unanswered = False   # the current step was sent and not answered

    def call(self):
        name = self.plan[self.step]
        key = f"{name}-{self.tag}"
        ride = f"/v1/rides/{self.ride_id}"
        return {
            "create": ("POST", "/v1/ride-requests", self.passenger, (201,), RIDE_BODY, "requested"),
            "cancel-request": ("POST", f"/v1/ride-requests/{self.request_id}/cancel", self.passenger, (200,), None, "cancelled"),
            "accept": ("POST", f"/v1/ride-requests/{self.request_id}/accept", self.driver, (200,), None, "accepted"),
            "passenger-cancel": ("POST", f"{ride}/cancel", self.passenger, (200,), {"reason": "plans changed"}, "cancelled"),
            "arrive": ("POST", f"{ride}/arrive", self.driver, (200,), None, "arrived"),
            "driver-cancel": ("POST", f"{ride}/cancel", self.driver, (200,), None, "cancelled"),
        }[name], key


class Client:
    def __init__(self, seed, people):
        self.people = people
        self.rng = random.Random(seed)
        self.seed = seed
        self.lock = threading.Lock()
        self.acks = []          # (request_id, ride_id, state)
        self.waiting = []       # rides whose current step is unanswered or not yet sent
        self.counter = 0
        self.sent = self.answered = self.unanswered_total = 0
        self.problems = []

    def next_ride(self):
        with self.lock:
            if self.waiting:
                return self.waiting.pop(0)
            self.counter += 1
            index = self.counter
        return Ride(f"{self.seed}-{index}", self.people["passengers"][index % len(self.people["passengers"])],
                    self.people["drivers"][index % len(self.people["drivers"])], random.Random(f"{self.seed}-{index}"))

    def worker(self, port, stop):
        ride = None
        while not stop.is_set():
            ride = ride or self.next_ride()
            (method, path, token, expect, body, state), key = ride.call()
            with self.lock:
                self.sent += 1
            try:
                status, answer = request(port, method, path, token=token, body=body, key=key, timeout=20)
            except Exception:
                status, answer = None, None
            if status in expect:
                with self.lock:
                    self.answered += 1
                    if ride.plan[ride.step] == "create":
                        ride.request_id = answer["id"]
                    if ride.plan[ride.step] == "accept":
                        ride.ride_id = answer["id"]
                    self.acks.append((ride.request_id, ride.ride_id, state))
                ride.unanswered = False
                ride.step += 1
                if ride.step == len(ride.plan):
                    ride = None
                continue
            if status is None or status >= 500:
                ride.unanswered = True
                with self.lock:
                    self.unanswered_total += 1
                if stop.is_set():
                    break
                time.sleep(0.05)
                continue
            # A 4xx: with --expect-loss an earlier acknowledged write may be gone; otherwise a bug.
            with self.lock:
                self.problems.append(f"{method} {path} -> {status} {answer}")
            ride = None
        if ride is not None:
            with self.lock:
                self.waiting.append(ride)


class Mount:
    def __init__(self, work, model="posix"):
        self.model = model
        self.backing = os.path.join(work, "disk")
        self.path = os.path.join(work, "mnt")
        os.makedirs(self.backing, exist_ok=True)

    def start(self):
        powerfs.start(self.backing, self.path, model=self.model)

    def send(self, command):
        return powerfs.send(self.path, command)

    def cut(self, tear, seed):
        return self.send({"command": "cut", "tear": tear, "seed": seed})

    def kill_users(self):
        """SIGKILL every process using the mount (its cwd, root or an open file there): what a
        power cut does to them. They are all the run's own (servers, admin, PostgreSQL)."""
        killed = []
        for _ in range(50):
            found = []
            for pid in os.listdir("/proc"):
                if not pid.isdigit() or int(pid) == os.getpid():
                    continue
                try:
                    links = [os.readlink(f"/proc/{pid}/cwd")]
                    links += [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
                except OSError:
                    continue
                if any(link == self.path or link.startswith(self.path + "/") for link in links):
                    found.append(int(pid))
            if not found:
                return killed
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        raise Fatal(f"processes still using {self.path}: {found}")

    def remount(self):
        powerfs.stop(self.path)
        if powerfs.mounted(self.path):
            raise Fatal(f"{self.path} still mounted after unmount")
        self.start()

    def stop(self):
        powerfs.stop(self.path)
        shutil.rmtree(powerfs.state_dir(self.path), ignore_errors=True)


class Serve:
    """`ridebeacon serve`; its exit at startup is a refusal, kept with its message."""

    def __init__(self, binary, database, log_path, env):
        self.binary, self.database, self.log_path = binary, database, log_path
        # No crash backtracer: a server that hits the frozen mount (SIGBUS on its mapped -shm)
        # would otherwise leave swift-backtrace holding its listening socket after the kill.
        self.env = dict(env, SWIFT_BACKTRACE="enable=no")
        self.port = None
        self.process = None

    def start(self):
        # A fresh port each start: the old one may still be held by what the cut killed.
        self.port = free_port()
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--database", self.database, "--log-level", "warning",
             "--many-rides-per-account"], stdout=subprocess.DEVNULL, stderr=log, env=self.env)
        log.close()

    def wait_healthy(self, timeout=90):
        """None when healthy, else the refusal (exit status and the log's last lines)."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                with open(self.log_path, errors="replace") as f:
                    tail = f.read().strip().splitlines()[-3:]
                return f"exited {self.process.returncode}: {' | '.join(tail)}"
            try:
                if request(self.port, "GET", "/health", timeout=2)[0] == 200:
                    return None
            except Exception:
                pass
            time.sleep(0.05)
        return f"not healthy after {timeout} s"

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        if self.process is not None:
            self.process.wait()


class PostgresOnMount:
    """A private PostgreSQL whose data directory is on the mount (initdb'd into the backing
    directory before the first mount: the durable starting point)."""

    def __init__(self, work, mount, port, fsync):
        self.work, self.mount, self.port, self.fsync = work, mount, port, fsync
        bins = sorted(d for d in os.listdir("/usr/lib/postgresql") if d.replace(".", "").isdigit())
        self.bin = f"/usr/lib/postgresql/{bins[-1]}/bin"
        self.socket_dir = os.path.join(work, "pg-socket")
        self.log = os.path.join(work, "postgres.log")
        self.process = None
        self.url_base = f"postgres://ridebeacon@127.0.0.1:{port}"

    def as_postgres(self, *command):
        return ["runuser", "-u", "postgres", "--", *command] if os.getuid() == 0 else list(command)

    def initdb(self):
        os.makedirs(self.socket_dir, exist_ok=True)
        for path in (self.mount.backing, self.socket_dir):
            shutil.chown(path, "postgres", "postgres")
            os.chmod(path, 0o700)
        # 1 MB WAL segments: segments are created, recycled and renamed often within a short run.
        subprocess.run(self.as_postgres(f"{self.bin}/initdb", "-D", os.path.join(self.mount.backing, "data"),
                                        "-U", "ridebeacon", "--auth=trust", "-E", "UTF8", "--wal-segsize=1"),
                       check=True, capture_output=True)

    def start(self, timeout=120):
        log = open(self.log, "ab")
        self.process = subprocess.Popen(self.as_postgres(
            f"{self.bin}/postgres", "-D", os.path.join(self.mount.path, "data"), "-p", str(self.port), "-k", self.socket_dir,
            "-c", "listen_addresses=127.0.0.1", "-c", f"fsync={self.fsync}", "-c", "synchronous_commit=on",
            "-c", "full_page_writes=on", "-c", "shared_buffers=16MB", "-c", "max_wal_size=32MB", "-c", "min_wal_size=4MB",
            "-c", "checkpoint_timeout=30s", "-c", "max_connections=100", "-c", "logging_collector=off"),
            stdout=log, stderr=log, start_new_session=True)
        log.close()
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                with open(self.log, errors="replace") as f:
                    tail = [l for l in f.read().splitlines() if "FATAL" in l or "PANIC" in l][-3:]
                return f"postgres exited {self.process.returncode}: {' | '.join(tail)}"
            done = subprocess.run([f"{self.bin}/pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.port)])
            if done.returncode == 0:
                return None
            time.sleep(0.1)
        return f"postgres not ready after {timeout} s"

    def psql(self, database, *sql, check=True):
        arguments = ["psql", "-qAt", f"{self.url_base}/{database}"]
        for statement in sql:
            arguments += ["-c", statement]
        return subprocess.run(arguments, capture_output=True, text=True, check=check, timeout=60)

    def forget(self):
        if self.process is not None:
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


class Run:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.work = tempfile.mkdtemp(prefix=f"rb-powerloss-{args.backend}-")
        os.chmod(self.work, 0o755)
        self.mount = Mount(self.work, args.names or ("posix" if args.backend == "sqlite" else "linux"))
        self.env = dict(os.environ)
        if args.synchronous:
            self.env["RIDEBEACON_SQLITE_SYNCHRONOUS"] = args.synchronous
        self.postgres = None
        self.cuts = []
        self.problems = []
        self.lost = []           # acknowledged writes found missing (the negative controls)
        self.refusals = []
        self.extra = []          # second servers' databases (migration cuts), checked after each restart
        self.backups = []        # (path, acknowledged)
        self.servers = []

    # --- databases ---------------------------------------------------------------------------
    def database_url(self, name):
        if self.args.backend == "sqlite":
            return "sqlite:" + os.path.join(self.mount.path, f"{name}.sqlite")
        return f"{self.postgres.url_base}/{name}"

    def setup(self):
        if self.args.backend == "postgres":
            self.postgres = PostgresOnMount(self.work, self.mount, self.args.pg_port, self.args.fsync)
            self.postgres.initdb()
        self.mount.start()
        if self.postgres:
            refusal = self.postgres.start()
            if refusal:
                raise Fatal(refusal)
            self.postgres.psql("postgres", "CREATE DATABASE rides")
        self.database = self.database_url("rides")
        before = self.mount.send({"command": "status"})["ops"]
        first = create_account(self.args.binary, self.database, "passenger", "Passenger 0")
        # The filesystem operations of migrating a new database (and creating one account): the
        # range the migration cuts pick from.
        self.migration_ops = max(20, self.mount.send({"command": "status"})["ops"] - before)
        people = {"passengers": [first] + [create_account(self.args.binary, self.database, "passenger", f"Passenger {i}")
                                           for i in range(1, 4)],
                  "drivers": [create_account(self.args.binary, self.database, "driver", f"Driver {i}", vehicle="van")
                              for i in range(4)]}
        if self.args.expect_loss:
            # The negative controls never fsync (or too late): without a sync(1) here their cut
            # would take the whole setup (the database itself) with it, and count nothing.
            self.mount.send({"command": "sync"})
        self.client = Client(self.args.seed, people)
        self.server = Serve(self.args.binary, self.database, os.path.join(self.work, "serve.log"), self.env)
        self.server.start()
        refusal = self.server.wait_healthy()
        if refusal:
            raise Fatal(f"first start: {refusal}")

    # --- one cycle ----------------------------------------------------------------------------
    def cycle(self, number):
        weights = {"load": 50, "checkpoint": 25, "migration": 15, "backup": 10 if self.args.backend == "sqlite" else 0}
        if self.args.modes:
            weights = {m: (w if m in self.args.modes.split(",") else 0) for m, w in weights.items()}
        mode = self.rng.choices(list(weights), weights=list(weights.values()))[0]
        tear = self.rng.random() < 0.5
        seed = self.rng.randrange(1 << 30)
        stop = threading.Event()
        workers = [threading.Thread(target=self.client.worker, args=(self.server.port, stop)) for _ in range(self.args.workers)]
        for thread in workers:
            thread.start()
        acked_before = len(self.client.acks)
        info = {"cut": number, "mode": mode, "tear": tear}
        helpers, second = [], None
        time.sleep(self.rng.uniform(0.05, 0.4))
        if mode == "load":
            time.sleep(self.rng.uniform(0.0, self.args.load_seconds))
            report = self.mount.cut(tear, seed)
        else:
            if mode == "checkpoint":
                if self.args.backend == "sqlite":
                    trigger = {"ops": ["write"], "path_contains": "rides.sqlite", "path_excludes": ["-wal", "-shm", "-journal"]}
                else:
                    trigger = {"ops": ["write"], "path_contains": "data/base/"}
                trigger["skip"] = self.rng.randint(0, 20)
                helpers.append(threading.Thread(target=self.checkpointer, args=(stop,)))
            elif mode == "migration":
                name = f"migrated{number}"
                if self.postgres:
                    self.postgres.psql("postgres", f"CREATE DATABASE {name}")
                    # Make the new database's files durable before the armed cut: the cut is
                    # about the migration, not CREATE DATABASE (checked by itself elsewhere).
                    self.postgres.psql("postgres", "CHECKPOINT")
                if self.args.backend == "sqlite":
                    trigger = {"ops": ["*"], "path_contains": f"{name}.sqlite", "skip": self.rng.randint(0, self.migration_ops)}
                else:
                    # The migration's own files: its tables' and indexes' in the new database's directory.
                    oid = self.postgres.psql("postgres", f"SELECT oid FROM pg_database WHERE datname = '{name}'").stdout.strip()
                    trigger = {"ops": ["*"], "path_contains": f"data/base/{oid}/", "skip": self.rng.randint(0, 40)}
                second = Serve(self.args.binary, self.database_url(name), os.path.join(self.work, f"serve-{name}.log"), self.env)
                self.extra.append(second)
            else:  # backup
                # Three moments: while the copy is written, at its rename into place, and just
                # after `admin backup` answered (the acknowledged backup must then be whole).
                target = os.path.join(self.mount.path, f"backup-{number}.sqlite")
                entry = {"path": target, "acknowledged": False, "done": threading.Event()}
                moment = self.rng.choice(["copy", "rename", "answered"])
                info["backup_moment"] = moment
                trigger = ({"ops": ["write", "fsync"], "path_contains": f"backup-{number}", "skip": self.rng.randint(0, 40)}
                           if moment == "copy" else
                           {"ops": ["rename"], "path_contains": f"backup-{number}"} if moment == "rename" else None)
                self.backups.append(entry)
                helpers.append(threading.Thread(target=self.backup, args=(entry,)))
            if trigger is not None:
                trigger.update({"tear": tear, "seed": seed})
                self.mount.send({"command": "arm", "trigger": trigger})
            for thread in helpers:
                thread.start()
            if second:
                second.start()
            deadline = time.monotonic() + self.args.armed_timeout * (1 if trigger is not None else 5)
            while time.monotonic() < deadline and not self.mount.send({"command": "status"})["frozen"]:
                if trigger is None and entry["done"].is_set():
                    break
                time.sleep(0.02)
            status = self.mount.send({"command": "status"})
            if trigger is None:
                report = self.mount.cut(tear, seed)
                if not entry["acknowledged"]:
                    info["backup_not_answered_in_time"] = True
            elif status["frozen"]:
                report = status["cut"]
            else:
                info["armed_cut_not_reached"] = True
                self.mount.send({"command": "disarm"})
                report = self.mount.cut(tear, seed)
        stop.set()
        info["killed"] = len(self.mount.kill_users())
        for thread in workers + helpers:
            thread.join()
        self.server.kill()
        if second:
            second.kill()
        if self.postgres:
            self.postgres.forget()
        info.update({"writes_dropped": report["unsynced_writes_dropped"], "names_undone": report["names_undone"],
                     "torn": bool(report["torn"]), "reason": report["reason"],
                     "acknowledged_this_cycle": len(self.client.acks) - acked_before})
        if self.args.keep:
            with open(os.path.join(self.work, "cuts.jsonl"), "a") as f:
                f.write(json.dumps({"cut": number, **report}) + "\n")
        if report["undo_errors"]:
            self.problems.append(f"cut {number}: powerfs undo errors {report['undo_errors']}")
        self.mount.remount()
        self.restart_and_check(number, info)
        self.cuts.append(info)
        print(json.dumps(info), flush=True)

    def checkpointer(self, stop):
        """Checkpoints while the armed cut waits for a write into the main database file."""
        while not stop.is_set():
            try:
                if self.postgres:
                    self.postgres.psql("rides", "CHECKPOINT", check=False)
                else:
                    conn = sqlite3.connect(self.database[len("sqlite:"):], timeout=5)
                    conn.execute("PRAGMA synchronous = FULL")
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    conn.close()
            except Exception:
                return
            time.sleep(0.1)

    def backup(self, entry):
        code, _, _ = admin(self.args.binary, self.database, "backup", "--to", entry["path"], check=False)
        entry["acknowledged"] = code == 0
        entry["done"].set()

    # --- after the cut ---------------------------------------------------------------------------
    def restart_and_check(self, number, info):
        if self.postgres:
            refusal = self.postgres.start()
            if refusal:
                self.refuse(number, info, refusal)
                return
        started = time.monotonic()
        self.server.start()
        refusal = self.server.wait_healthy(timeout=30 if self.args.expect_loss else 90)
        info["restart_s"] = round(time.monotonic() - started, 2)
        if refusal:
            self.refuse(number, info, refusal)
            return
        tables = read_database(self.database)
        counts, problems = verify(tables, self.client.acks, None, None)
        info["found"] = counts["found"]
        info["acknowledged"] = counts["acknowledged"]
        lost = [p for p in problems if p.startswith("acknowledged write missing")]
        other = [p for p in problems if p not in lost]
        if self.args.backend == "sqlite":
            conn = sqlite3.connect(f"file:{self.database[len('sqlite:'):]}?mode=ro", uri=True)
            check = [row[0] for row in conn.execute("PRAGMA integrity_check")]
            conn.close()
            if check != ["ok"]:
                other.append(f"integrity_check: {check[:3]}")
        ids = [row[4] for row in tables["events"]]
        if len(ids) != len(set(ids)):
            other.append("event ids repeat")
        if lost:
            info["lost"] = len(lost)
            self.lost += lost
            # Forget them, so the next cycles count only new losses (the negative controls).
            present = {(r, ride, s) for r, ride, s in self.client.acks}
            missing = set()
            for r, ride, s in present:
                history = [e[3] for e in tables["events"] if e[0] == r]
                if history.count(s) != 1:
                    missing.add(r)
            with self.client.lock:
                self.client.acks = [a for a in self.client.acks if a[0] not in missing]
                self.client.waiting = [w for w in self.client.waiting if w.request_id not in missing]
        if other:
            info["problems"] = other[:5]
            self.problems += [f"cut {number}: {p}" for p in other]
        for second in self.extra:
            second.start()
            refusal = second.wait_healthy()
            if refusal:
                self.refuse(number, info, f"migrated database {second.database}: {refusal}")
                continue
            status, answer = request(second.port, "GET", "/health", timeout=5)
            second.kill()
        self.extra = []
        for entry in self.backups:
            self.check_backup(number, info, entry)
        self.backups = []

    def check_backup(self, number, info, entry):
        path = entry["path"]
        if not os.path.exists(path):
            info["backup"] = "absent"
            if entry["acknowledged"]:
                self.problems.append(f"cut {number}: admin backup acknowledged {path}, gone after the cut")
            return
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            check = [row[0] for row in conn.execute("PRAGMA integrity_check")]
            rides = conn.execute("SELECT COUNT(*) FROM rideRequest").fetchone()[0]
        except sqlite3.DatabaseError as e:
            check, rides = [str(e)], None
        conn.close()
        info["backup"] = {"acknowledged": entry["acknowledged"], "integrity": check[:2], "requests": rides}
        if check != ["ok"]:
            self.problems.append(f"cut {number}: backup {path} under its final name fails integrity_check: {check[:3]}")

    def refuse(self, number, info, message):
        info["refused"] = message
        self.refusals.append(f"cut {number}: {message}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--binary", default=os.path.join(REPO, ".build/debug/ridebeacon"))
    parser.add_argument("--cuts", type=int, default=10)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--load-seconds", type=float, default=1.0, help="the load cut falls within this many seconds")
    parser.add_argument("--armed-timeout", type=float, default=4.0, help="seconds an armed cut may wait before a plain cut")
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], help="SQLite: RIDEBEACON_SQLITE_SYNCHRONOUS")
    parser.add_argument("--fsync", choices=["on", "off"], default="on", help="PostgreSQL: fsync setting")
    parser.add_argument("--pg-port", type=int, default=int(os.environ.get("RIDEBEACON_POWERLOSS_PG_PORT", "55435")))
    parser.add_argument("--names", choices=["posix", "linux"],
                        help="powerfs's rule for names (default: posix for SQLite; linux for PostgreSQL, which relies on it)")
    parser.add_argument("--modes", help="only these cut modes (comma-separated: load,checkpoint,migration,backup)")
    parser.add_argument("--expect-loss", action="store_true", help="negative control: fail unless writes are lost")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--results", help="append the JSON summary to this file")
    args = parser.parse_args()
    if os.getuid() != 0:
        sys.exit("power_loss.py: run as root (the FUSE mount must be open to the PostgreSQL user too)")

    run = Run(args)
    started = time.monotonic()
    summary = {"backend": args.backend, "seed": args.seed, "work": run.work, "names": run.mount.model,
               "config": {"sqlite_synchronous": args.synchronous or "FULL"} if args.backend == "sqlite" else {"fsync": args.fsync}}
    failure = None
    try:
        run.setup()
        for number in range(1, args.cuts + 1):
            run.cycle(number)
            # The real configuration stops at its first failure (the evidence stays in the work
            # directory); a negative control goes on counting losses until it cannot start.
            if run.refusals or (run.problems and not args.expect_loss) or (run.lost and not args.expect_loss):
                break
    except Fatal as e:
        failure = str(e)
    finally:
        run.server.kill() if hasattr(run, "server") else None
        try:
            run.mount.kill_users()
        except Fatal:
            pass
        if run.postgres:
            run.postgres.forget()
        run.mount.stop()
    modes = {}
    for cut in run.cuts:
        key = cut["mode"] + (" (armed cut not reached: plain cut)" if cut.get("armed_cut_not_reached") else "")
        modes[key] = modes.get(key, 0) + 1
    summary.update({
        "cuts": len(run.cuts), "cuts_by_mode": modes, "torn_writes": sum(1 for c in run.cuts if c["torn"]),
        "acknowledged_writes": len(run.client.acks) + len(run.lost) if hasattr(run, "client") else 0,
        "acknowledged_lost": len(run.lost), "lost_examples": run.lost[:3],
        "cuts_with_loss": sum(1 for c in run.cuts if c.get("lost")),
        "refusals": run.refusals[:5], "problems": run.problems[:10] + ([failure] if failure else []),
        "unanswered_attempts": run.client.unanswered_total if hasattr(run, "client") else 0,
        "client_4xx": run.client.problems[:5] if hasattr(run, "client") else [],
        "restart_s_max": max((c.get("restart_s", 0) for c in run.cuts), default=None),
        "seconds": round(time.monotonic() - started, 1),
    })
    if args.expect_loss:
        ok = bool(run.lost or run.refusals) and not failure
    else:
        ok = not (run.lost or run.refusals or run.problems or failure or summary["client_4xx"]) and len(run.cuts) == args.cuts
    summary["pass"] = ok
    if args.results:
        with open(args.results, "a") as f:
            f.write(json.dumps(summary, sort_keys=True) + "\n")
    print(json.dumps(summary, indent=1, sort_keys=True))
    what = "negative control (must lose writes)" if args.expect_loss else "power loss"
    print(f"power-loss {args.backend} {json.dumps(summary['config'])}: {what}: {'PASS' if ok else 'FAIL'}: "
          f"{len(run.cuts)} cuts, {summary['acknowledged_writes']} acknowledged writes, {len(run.lost)} lost, "
          f"{len(run.refusals)} refusals to start")
    if ok and not args.keep:
        shutil.rmtree(run.work, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
