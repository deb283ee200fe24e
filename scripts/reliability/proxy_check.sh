#!/usr/bin/env bash
# deploy/nginx/ridebeacon.conf in a real nginx (RELIABILITY.md, "Deploy"): TLS with a throwaway
# self-signed certificate, in front of a real `ridebeacon serve`; a ride's event stream read
# through the proxy must deliver a live event while the stream is still open (the client cuts
# it after 6 s, so an event held in a proxy buffer would never arrive); plain HTTP redirects;
# no path under /metrics is served publicly (/metrics/, //metrics, %-encoded too). Ports are rewritten to free ones.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$(realpath "${RIDEBEACON_BIN:-.build/debug/ridebeacon}")
work=$(mktemp -d /tmp/rb-proxy-XXXXXX)
pids=()
# The scratch directory is kept only when the check fails.
trap 'status=$?; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; [ $status != 0 ] || rm -rf "$work"; true' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
app=$(port) tls=$(port) plain=$(port)
host=rides.example.org

db="sqlite:$work/rides.sqlite"
passenger=$("$BIN" admin create-account --role passenger --name Ana --database "$db" 2>/dev/null)
driver=$("$BIN" admin create-account --role driver --name Ben --vehicle "blue Prius" --database "$db" 2>/dev/null)
"$BIN" serve --port "$app" --database "$db" --log-level warning 2>"$work/serve.log" & pids+=($!)

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$host" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
mkdir -p "$work/tmp"
sed -e "s#server 127.0.0.1:8080#server 127.0.0.1:$app#" -e "s#listen 443 ssl http2;#listen 127.0.0.1:$tls ssl http2;#" \
    -e "s#listen 80;#listen 127.0.0.1:$plain;#" -e '/listen \[::\]/d' \
    -e "s#/etc/letsencrypt/live/$host/fullchain.pem#$work/cert.pem#" -e "s#/etc/letsencrypt/live/$host/privkey.pem#$work/key.pem#" \
    deploy/nginx/ridebeacon.conf > "$work/ridebeacon.conf"
cat > "$work/nginx.conf" <<CONF
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events {}
http {
    access_log off;
    client_body_temp_path $work/tmp/body; proxy_temp_path $work/tmp/proxy;
    fastcgi_temp_path $work/tmp/fastcgi; uwsgi_temp_path $work/tmp/uwsgi; scgi_temp_path $work/tmp/scgi;
    include $work/ridebeacon.conf;
}
CONF
nginx -t -q -p "$work" -c "$work/nginx.conf"
nginx -p "$work" -c "$work/nginx.conf" & pids+=($!)

api="https://$host:$tls"
via() { curl -sk --resolve "$host:$tls:127.0.0.1" "$@"; }
for _ in $(seq 100); do via -f "$api/health" >/dev/null 2>&1 && break; sleep 0.1; done
via -f "$api/health" | grep -q '"ok"'
json_id() { python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
request=$(via -f "$api/v1/ride-requests" -H "Authorization: Bearer $passenger" -d '{"passengerName":"Ana","pickup":"a","dropoff":"b"}' | json_id)
ride=$(via -f -X POST "$api/v1/ride-requests/$request/accept" -H "Authorization: Bearer $driver" | json_id)

# The stream stays open for 6 s; the arrival happens 1 s in. Each line is stamped on arrival.
via -N --max-time 6 "$api/v1/rides/$ride/events" -H "Authorization: Bearer $passenger" \
    | while IFS= read -r line; do echo "$(date +%s.%N) $line"; done > "$work/stream.txt" &
reader=$!
sleep 1
sent=$(date +%s.%N)
via -f -X POST "$api/v1/rides/$ride/arrive" -H "Authorization: Bearer $driver" >/dev/null
wait $reader || true
seen=$(awk '/event: arrived/ { print $1; exit }' "$work/stream.txt")
[ -n "$seen" ] || { echo "no 'arrived' event came through the proxy:"; cat "$work/stream.txt"; exit 1; }
delay=$(python3 -c "print(f'{$seen - $sent:.3f}')")
echo "arrived event through nginx after ${delay} s (stream: $(grep -c '^[0-9.]* event:' "$work/stream.txt") events)"

[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$plain/health")" = 301 ]
for path in /metrics /metrics/ /metrics/x '/metrics?x=1' //metrics /%6detrics/; do
    code=$(via -o /dev/null -w '%{http_code}' --path-as-is "$api$path")
    [ "$code" = 404 ] || { echo "$path through the proxy answered $code, not 404"; exit 1; }
done
echo "ok: TLS proxy serves the API, streams events unbuffered, redirects HTTP, hides everything under /metrics"
