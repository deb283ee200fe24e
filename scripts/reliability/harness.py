"""Real parts for the reliability drivers: `ridebeacon serve` processes, a private PostgreSQL,
the admin CLI, plain HTTP and SSE clients, and direct reads of either database.
Standard library only, so it runs with the system python3 as well as in .venv."""

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Fatal(Exception):
    """An answer the driver did not expect: the run fails with this message."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, token=None, body=None, key=None, timeout=15.0, headers=None):
    """One HTTP exchange on a fresh connection. Returns (status, parsed JSON or text).
    Raises OSError/HTTPException when there is no answer (server down, connection cut)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        if key:
            all_headers["Idempotency-Key"] = key
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, raw.decode(errors="replace")
    finally:
        conn.close()


class Server:
    """One `ridebeacon serve` on a fixed port, restartable after kill -9."""

    def __init__(self, binary, database, port, log_path):
        self.binary, self.database, self.port, self.log_path = binary, database, port, log_path
        self.process = None

    def start(self):
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--database", self.database, "--log-level", "warning",
             # The drivers replay many rides with a few accounts (one ride at a time would refuse them).
             "--many-rides-per-account"],
            stdout=subprocess.DEVNULL, stderr=log)
        log.close()

    def healthy(self):
        try:
            return request(self.port, "GET", "/health", timeout=2)[0] == 200
        except (OSError, http.client.HTTPException):
            return False

    def wait_healthy(self, timeout=60.0):
        """Seconds until /health answers 200."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process is not None and self.process.poll() is not None:
                raise Fatal(f"ridebeacon serve on port {self.port} exited with {self.process.returncode}; see {self.log_path}")
            if self.healthy():
                return time.monotonic() - started
            time.sleep(0.02)
        raise Fatal(f"ridebeacon serve on port {self.port} not healthy after {timeout} s; see {self.log_path}")

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill9()

    def rss_kib(self):
        try:
            with open(f"/proc/{self.process.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None


def admin(binary, database, *arguments, check=True):
    """Runs `ridebeacon admin ...`; returns (exit status, stdout, stderr)."""
    done = subprocess.run([binary, "admin", *arguments, "--database", database], capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise Fatal(f"ridebeacon admin {' '.join(arguments)}: {done.stderr.strip()}")
    return done.returncode, done.stdout.strip(), done.stderr.strip()


def create_account(binary, database, role, name, vehicle=None):
    arguments = ["create-account", "--role", role, "--name", name]
    if vehicle:
        arguments += ["--vehicle", vehicle]
    return admin(binary, database, *arguments)[1]


class Postgres:
    """A private PostgreSQL (scripts/test-postgres.sh on its own port and data dir) that the
    driver may crash (`pg_ctl stop -m immediate`: no shutdown checkpoint, like a power cut to
    the database process) and start again."""

    def __init__(self, port):
        self.port = port
        self.root = f"/tmp/ridebeacon-reliability-pg-{port}"
        self.env = dict(os.environ, RIDEBEACON_TEST_PG_PORT=str(port), RIDEBEACON_TEST_PG_DIR=self.root)
        bins = sorted(d for d in os.listdir("/usr/lib/postgresql") if d.replace(".", "").isdigit())
        self.bin = f"/usr/lib/postgresql/{bins[-1]}/bin"
        self.as_owner = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []

    def start(self):
        out = subprocess.run([os.path.join(REPO, "scripts/test-postgres.sh")], env=self.env,
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()

    def crash(self):
        subprocess.run([*self.as_owner, f"{self.bin}/pg_ctl", "-D", f"{self.root}/data", "-m", "immediate", "stop"],
                       capture_output=True, check=True)

    def stop(self):
        subprocess.run([os.path.join(REPO, "scripts/test-postgres.sh"), "stop"], env=self.env, capture_output=True)

    def create_database(self, base_url, name):
        subprocess.run(["psql", "-q", base_url, "-c", f"DROP DATABASE IF EXISTS {name}", "-c", f"CREATE DATABASE {name}"],
                       capture_output=True, check=True)
        return base_url.rsplit("/", 1)[0] + "/" + name


# The two schemas name the same columns differently (camelCase in SQLite, snake_case in PostgreSQL).
QUERIES = {
    "sqlite": {
        "requests": "SELECT id, status, rideID FROM rideRequest",
        "rides": "SELECT id, requestID, state, driverID FROM ride",
        "events": "SELECT requestID, rideID, sequence, state, id FROM rideEvent ORDER BY requestID, sequence",
    },
    "postgres": {
        "requests": "SELECT id, status, ride_id FROM ride_request",
        "rides": "SELECT id, request_id, state, driver_id FROM ride",
        "events": "SELECT request_id, ride_id, sequence, state, id FROM ride_event ORDER BY request_id, sequence",
    },
}


def read_database(database):
    """Every request, ride and event, straight from the database (not through the server)."""
    if database.startswith("sqlite:"):
        conn = sqlite3.connect(f"file:{database[len('sqlite:'):]}?mode=ro", uri=True)
        try:
            return {name: [tuple(row) for row in conn.execute(sql)] for name, sql in QUERIES["sqlite"].items()}
        finally:
            conn.close()
    tables = {}
    for name, sql in QUERIES["postgres"].items():
        out = subprocess.run(["psql", "-At", "-F", "\t", "-c", sql, database], capture_output=True, text=True, check=True)
        rows = [tuple(None if v == "" else v for v in line.split("\t")) for line in out.stdout.splitlines() if line]
        tables[name] = [(r[0], r[1], int(r[2]), r[3], int(r[4])) if name == "events" else r for r in rows]
    return tables


class EventStream:
    """A server-sent event stream read line by line (one ride's, or every ride's)."""

    def __init__(self, port, path, token, timeout=15.0):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}", "Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        if self.response.status != 200:
            raise Fatal(f"GET {path} on port {port}: {self.response.status}")

    def next_event(self):
        """The next event's name, skipping comments and heartbeats."""
        while True:
            line = self.response.fp.readline()
            if not line:
                raise Fatal("event stream ended")
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                return line[len("event: "):]

    def close(self):
        self.conn.close()


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]
