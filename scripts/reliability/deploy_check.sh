#!/usr/bin/env bash
# Checks deploy/ against real parts (RELIABILITY.md, "Deploy"):
#  1. `systemd-analyze verify` on every unit, with ExecStart pointed at the built binary (verify
#     insists the executable exists); any complaint, even a warning, fails.
#  2. deploy/postgresql/bootstrap.sh on a private PostgreSQL, then `ridebeacon serve` as the
#     role it made: migrates, answers /health, creates an account; the role cannot create
#     databases, roles, or tables outside its schema.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$(realpath "${RIDEBEACON_BIN:-.build/debug/ridebeacon}")
PG_PORT=${RIDEBEACON_RELIABILITY_PG_PORT:-55433}
work=$(mktemp -d /tmp/rb-deploy-XXXXXX)
server=""
# The scratch directory is kept only when the check fails.
trap 'status=$?; [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; [ $status != 0 ] || rm -rf "$work"; true' EXIT

echo "== systemd-analyze verify deploy/systemd/*"
for unit in deploy/systemd/*; do
    sed "s#/usr/local/bin/ridebeacon#$BIN#g" "$unit" > "$work/$(basename "$unit")"
done
units=()
for unit in "$work"/*.service "$work"/*.timer; do
    case $unit in *@.service) units+=("${unit%@.service}@hci0.service");; *) units+=("$unit");; esac
done
out=$(systemd-analyze verify "${units[@]}" 2>&1) || { echo "$out"; exit 1; }
if [ -n "$out" ]; then echo "$out"; echo "systemd-analyze verify complained"; exit 1; fi
echo "ok: ${#units[@]} units"

echo "== PostgreSQL bootstrap (least-privilege role) on port $PG_PORT"
base=$(RIDEBEACON_TEST_PG_PORT=$PG_PORT RIDEBEACON_TEST_PG_DIR=/tmp/ridebeacon-reliability-pg-$PG_PORT scripts/test-postgres.sh)
# As the private server's superuser; the app role and database get names of their own.
export PGHOST=127.0.0.1 PGPORT=$PG_PORT PGUSER=ridebeacon PGDATABASE=postgres
role=rb_deploy_app database=rb_deploy_check
psql -q -c "DROP DATABASE IF EXISTS $database" 2>/dev/null
psql -q -c "DROP OWNED BY $role" 2>/dev/null || true
psql -q -c "DROP ROLE IF EXISTS $role" 2>/dev/null
url=$(RIDEBEACON_DB_ROLE=$role RIDEBEACON_DB_NAME=$database RIDEBEACON_DB_PASSWORD=deploy-check-pw deploy/postgresql/bootstrap.sh)
# Twice: re-running must be harmless.
url=$(RIDEBEACON_DB_ROLE=$role RIDEBEACON_DB_NAME=$database RIDEBEACON_DB_PASSWORD=deploy-check-pw deploy/postgresql/bootstrap.sh)
token=$("$BIN" admin create-account --role dispatcher --name Dot --database "$url" 2>/dev/null)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN" serve --port "$port" --database "$url" --log-level warning 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/health" | grep -q '"postgresql"'
curl -sf "http://127.0.0.1:$port/v1/rides" -H "Authorization: Bearer $token" | grep -q '"rides"'
as_app() { PGPASSWORD=deploy-check-pw psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U "$role" -d "${2:-$database}" -v ON_ERROR_STOP=1 -c "$1" 2>&1; }
tables=$(PGPASSWORD=deploy-check-pw psql -X -At -h 127.0.0.1 -p "$PG_PORT" -U "$role" -d "$database" \
    -c "SELECT count(*) FROM pg_tables WHERE schemaname = '$role'")
[ "$tables" -ge 5 ] || { echo "the server did not migrate into schema $role ($tables tables)"; exit 1; }
refused() { if out=$(as_app "$@"); then echo "the app role was allowed: $1"; exit 1; else echo "refused as it should be: $1 (${out##*ERROR:  })"; fi; }
refused "CREATE DATABASE rb_escape"
refused "CREATE ROLE rb_escape"
refused "CREATE TABLE public.escape (x int)"
echo "ok: bootstrap role $role serves, migrated $tables tables into its own schema, and is refused elsewhere"
