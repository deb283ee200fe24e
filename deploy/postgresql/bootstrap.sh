#!/usr/bin/env bash
# Creates RideBeacon's role, database and schema (bootstrap.sql) and prints the
# RIDEBEACON_DATABASE URL for /etc/ridebeacon/ridebeacon.env. Idempotent; re-running sets a new
# password. Connects as a superuser the usual libpq way (PGHOST, PGPORT, PGUSER, or peer auth:
# `sudo -u postgres deploy/postgresql/bootstrap.sh`).
#   RIDEBEACON_DB_PASSWORD=...   default: a random one
#   RIDEBEACON_DB_ROLE, RIDEBEACON_DB_NAME   default: ridebeacon, ridebeacon
#   RIDEBEACON_DB_HOST           the host servers use in the URL (default: PGHOST or localhost)
set -euo pipefail
here=$(dirname "$0")
password=${RIDEBEACON_DB_PASSWORD:-$(head -c 24 /dev/urandom | base64 | tr -d '/+=')}
role=${RIDEBEACON_DB_ROLE:-ridebeacon}
name=${RIDEBEACON_DB_NAME:-ridebeacon}
psql -q -X -d "${PGDATABASE:-postgres}" -v ON_ERROR_STOP=1 -v app_password="$password" \
    -v app_role="$role" -v app_database="$name" -f "$here/bootstrap.sql" >&2
echo "postgres://$role:$password@${RIDEBEACON_DB_HOST:-${PGHOST:-localhost}}:${PGPORT:-5432}/$name"
