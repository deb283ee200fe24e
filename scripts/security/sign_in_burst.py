#!/usr/bin/env python3
"""Issue 24's limiter probe, re-run: bursts of concurrent wrong sign-in codes from one address
against a running `ridebeacon serve`, counting answers (401: the code was looked up; 429: refused
before any lookup). Usage: sign_in_burst.py URL [BURSTS] [PER_BURST] [PAUSE_S] [spread]
With `spread`, every request claims another client address in X-Forwarded-For (start the server
with --client-address-header X-Forwarded-For): what a botnet sees, the server-wide budget's case.
"""
import json, sys, threading, time, urllib.request, urllib.error, random

url = sys.argv[1].rstrip("/")
bursts = int(sys.argv[2]) if len(sys.argv) > 2 else 10
per_burst = int(sys.argv[3]) if len(sys.argv) > 3 else 300
pause = float(sys.argv[4]) if len(sys.argv) > 4 else 3.0
spread = len(sys.argv) > 5 and sys.argv[5] == "spread"
counts = {}
lock = threading.Lock()

def guess():
    code = "%08d" % random.randrange(10**8)
    request = urllib.request.Request(url + "/v1/sign-in", data=json.dumps({"code": code}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    if spread:
        request.add_header("X-Forwarded-For", "10.%d.%d.%d" % (random.randrange(256), random.randrange(256), random.randrange(1, 255)))
    try:
        status = urllib.request.urlopen(request, timeout=30).status
    except urllib.error.HTTPError as error:
        status = error.code
    except Exception:
        status = "error"
    with lock:
        counts[status] = counts.get(status, 0) + 1

start = time.monotonic()
for _ in range(bursts):
    threads = [threading.Thread(target=guess) for _ in range(per_burst)]
    for t in threads: t.start()
    for t in threads: t.join()
    time.sleep(pause)
elapsed = time.monotonic() - start
checked = counts.get(401, 0)
print(json.dumps({"spread": spread, "bursts": bursts, "per_burst": per_burst, "elapsed_s": round(elapsed, 1), "answers": {str(k): v for k, v in sorted(counts.items(), key=str)},
                  "checked": checked, "checked_per_min": round(checked / elapsed * 60, 1)}))
