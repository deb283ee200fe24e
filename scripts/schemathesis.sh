#!/usr/bin/env bash
# schemathesis against a live `ridebeacon serve` (temp SQLite) and openapi.yaml, once per role,
# with tokens from the admin CLI. Bounded: few examples per operation, a fixed seed, a time
# budget per role. Checks: no 5xx, responses match their schemas, statuses are documented.
# The event streams never end, so those two operations are left out. One worker: with more,
# hypothesis describes lambdas with ast.parse from several threads, which CPython 3.11 can fail.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${RIDEBEACON_BIN:-.build/debug/ridebeacon}
ST=${SCHEMATHESIS:-.venv/bin/schemathesis}
EXAMPLES=${SCHEMATHESIS_EXAMPLES:-25}
SECONDS_PER_ROLE=${SCHEMATHESIS_SECONDS:-45}
work=$(mktemp -d /tmp/rb-schemathesis-XXXXXX)
db="sqlite:$work/rides.sqlite"
server=""
# The scratch directory (database, server log) is kept only when the run fails.
trap 'status=$?; [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; [ $status != 0 ] || rm -rf "$work"; true' EXIT

token() { "$BIN" admin create-account --database "$db" "$@" 2>/dev/null; }
declare -A TOKENS=(
    [admin]=$(token --role admin --name "Root")
    [dispatcher]=$(token --role dispatcher --name "Dot")
    [passenger]=$(token --role passenger --name "Ana")
    [driver]=$(token --role driver --name "Ben" --vehicle "blue Toyota Prius")
)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Limits raised: one address sends thousands of generated requests, and with the defaults most
# would be answered 429 instead of exercising the operation (RateLimitTests cover the 429s).
"$BIN" serve --port "$port" --database "$db" --log-level warning --auth-failures-per-minute 100000 \
    --touch-proofs-per-minute 100000 --touch-proofs-per-minute-per-address 100000 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done

# Some real rows, so generated ids sometimes hit something and lists are not empty.
api=http://127.0.0.1:$port/v1
# One ride at a time: Ana's first two rides end before she asks again; the third stays active.
for n in 1 2 3; do
    ride=$(curl -sf "$api/ride-requests" -H "Authorization: Bearer ${TOKENS[passenger]}" \
        -d '{"passengerName":"Ana","pickup":"Main St 1","dropoff":"Station"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["code"])')
    curl -sf -X POST "$api/ride-requests/$ride/accept" -H "Authorization: Bearer ${TOKENS[driver]}" >/dev/null
    [ $n = 3 ] || curl -sf "$api/rides/$ride/cancel" -H "Authorization: Bearer ${TOKENS[passenger]}" -d '{"reason":"seed"}' >/dev/null
done
# A waiting request of another passenger, and a saved place.
curl -sf "$api/ride-requests" -H "Authorization: Bearer $(token --role passenger --name "Bea")" \
    -d '{"pickup":"Elm St 5","dropoff":"Museum"}' >/dev/null
curl -sf "$api/places" -H "Authorization: Bearer ${TOKENS[passenger]}" -d '{"name":"home","address":"Main St 1"}' >/dev/null

status=0
# Admin last: its run revokes the tokens of accounts it lists, which would lock the others out.
for role in dispatcher passenger driver admin; do
    echo "== schemathesis as $role"
    "$ST" --config-file scripts/schemathesis.toml run openapi.yaml --url "http://127.0.0.1:$port" \
        -H "Authorization: Bearer ${TOKENS[$role]}" \
        --checks not_a_server_error,response_schema_conformance,status_code_conformance \
        --exclude-operation-id rideEvents --exclude-operation-id allEvents \
        --max-examples "$EXAMPLES" --seed 20261122 --max-time "$SECONDS_PER_ROLE" \
        --workers 1 --request-timeout 10 --no-color \
        --report junit --report-dir "$work/report-$role" || status=1
done
if [ $status -ne 0 ]; then echo "schemathesis found problems; server log: $work/serve.log"; fi
exit $status
