#!/usr/bin/env bash
# Starts a private PostgreSQL server for the tests (own data dir, own port, unix socket in the
# same dir) and prints its URL. `scripts/test-postgres.sh stop` stops it. Idempotent.
set -euo pipefail
PORT=${RIDEBEACON_TEST_PG_PORT:-55432}
ROOT=${RIDEBEACON_TEST_PG_DIR:-/tmp/ridebeacon-test-pg-$PORT}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
# PostgreSQL refuses to run as root; CI runs as root, a developer usually does not.
if [ "$(id -u)" = 0 ]; then AS=(runuser -u postgres --); else AS=(); fi

if [ "${1:-start}" = stop ]; then
    [ -d "$ROOT/data" ] && "${AS[@]}" "$BIN/pg_ctl" -D "$ROOT/data" -m fast stop >/dev/null 2>&1 || true
    exit 0
fi
if ! "$BIN/pg_isready" -q -h "$ROOT" -p "$PORT" 2>/dev/null; then
    if [ ! -f "$ROOT/data/PG_VERSION" ]; then
        mkdir -p "$ROOT"
        [ "$(id -u)" = 0 ] && chown postgres "$ROOT"
        "${AS[@]}" "$BIN/initdb" -D "$ROOT/data" -U ridebeacon --auth=trust -E UTF8 >/dev/null
    fi
    "${AS[@]}" "$BIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/server.log" -w \
        -o "-p $PORT -k $ROOT -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=400" start >/dev/null
fi
echo "postgres://ridebeacon@127.0.0.1:$PORT/postgres"
