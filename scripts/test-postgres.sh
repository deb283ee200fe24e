#!/usr/bin/env bash
# A private PostgreSQL server for the tests (own data dir, own port) that prints its URL.
#   scripts/test-postgres.sh          start it, or find it running (idempotent)
#   scripts/test-postgres.sh fresh    throw away its data dir first (what `make test` does)
#   scripts/test-postgres.sh stop     stop it
# RIDEBEACON_TEST_PG_DIR names the data dir's parent (default /tmp/ridebeacon-test-pg-PORT);
# RIDEBEACON_TEST_PG_PORT the port (default 55432, or with only the dir set, the first free port
# from 55450, clear of the reliability runs' fixed ports, kept in the dir for later calls).
# Safe after a machine stopped with the server running: a restored /tmp keeps its postmaster.pid,
# whose pid may now be an unrelated process, and a crashed server syncs its whole data directory
# before it answers (over a minute for a directory that kept every test run's databases).
set -euo pipefail
COMMAND=${1:-start}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
START_SECONDS=${RIDEBEACON_TEST_PG_START_SECONDS:-300}
# PostgreSQL refuses to run as root; CI runs as root, a developer usually does not.
if [ "$(id -u)" = 0 ]; then AS=(runuser -u postgres --); else AS=(); fi

if [ -n "${RIDEBEACON_TEST_PG_PORT:-}" ]; then
    PORT=$RIDEBEACON_TEST_PG_PORT
    ROOT=${RIDEBEACON_TEST_PG_DIR:-/tmp/ridebeacon-test-pg-$PORT}
elif [ -n "${RIDEBEACON_TEST_PG_DIR:-}" ]; then
    ROOT=$RIDEBEACON_TEST_PG_DIR
    PORT=$(cat "$ROOT/port" 2>/dev/null || true)
else
    PORT=55432
    ROOT=/tmp/ridebeacon-test-pg-$PORT
fi
DATA=$ROOT/data
# The unix socket's path must stay under ~100 bytes; a deep checkout gets one in /tmp instead.
if [ ${#ROOT} -le 60 ]; then SOCKETS=$ROOT; else SOCKETS=/tmp/rb-pg-$(printf %s "$ROOT" | md5sum | cut -c1-12); fi

ready() { [ -n "$PORT" ] && "$BIN/pg_isready" -q -h "$SOCKETS" -p "$PORT" 2>/dev/null; }

# The pid in postmaster.pid if that process is a postgres serving this data directory (postgres
# runs with its data directory as its cwd); a pid file that names anything else is stale.
our_server() {
    local pid
    pid=$(head -1 "$DATA/postmaster.pid" 2>/dev/null) || return 1
    [ -n "$pid" ] && [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$(readlink -f "$DATA")" ] && echo "$pid"
}

stop_server() {
    [ -d "$DATA" ] || return 0
    "${AS[@]}" "$BIN/pg_ctl" -D "$DATA" -m fast -t 60 stop >/dev/null 2>&1 || true
    if pid=$(our_server); then kill -KILL "$pid" 2>/dev/null || true; sleep 1; fi
}

fail() {
    echo "test-postgres: $1 (port $PORT, data $DATA); its log ends:" >&2
    tail -15 "$ROOT/server.log" >&2 2>/dev/null || true
    exit 1
}

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

case $COMMAND in
    stop) stop_server; exit 0 ;;
    fresh) stop_server; rm -rf "$DATA" "$ROOT/server.log" "$ROOT/port" ;;
    start) ;;
    *) echo "test-postgres: unknown command '$COMMAND' (start, fresh or stop)" >&2; exit 64 ;;
esac

if ! ready; then
    mkdir -p "$ROOT" "$SOCKETS"
    if [ "$(id -u)" = 0 ]; then
        chown postgres "$ROOT" "$SOCKETS"
        "${AS[@]}" test -w "$ROOT" || fail "the postgres user cannot write $ROOT (is a parent directory private to root?)"
    fi
    if [ ! -f "$DATA/PG_VERSION" ]; then
        "${AS[@]}" "$BIN/initdb" -D "$DATA" -U ridebeacon --auth=trust -E UTF8 >/dev/null
    fi
    if our_server >/dev/null; then
        # Ours, still starting or recovering after a crash: wait for it rather than start another.
        for _ in $(seq "$START_SECONDS"); do ready && break; our_server >/dev/null || break; sleep 1; done
        ready || stop_server
    fi
    if ! ready; then
        rm -f "$DATA/postmaster.pid" "$SOCKETS/.s.PGSQL.$PORT" "$SOCKETS/.s.PGSQL.$PORT.lock"
        if [ -z "$PORT" ]; then
            PORT=55450
            while port_taken "$PORT"; do PORT=$((PORT + 1)); done
            echo "$PORT" > "$ROOT/port"
        fi
        "${AS[@]}" "$BIN/pg_ctl" -D "$DATA" -l "$ROOT/server.log" -w -t "$START_SECONDS" \
            -o "-p $PORT -k $SOCKETS -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=400" start >/dev/null \
            || fail "PostgreSQL did not start"
        ready || fail "PostgreSQL started but does not answer"
    fi
fi
echo "postgres://ridebeacon@127.0.0.1:$PORT/postgres"
