"""The passenger page reports her position (issue 35), in headless Chromium over the DevTools
protocol with an emulated position (Emulation.setGeolocationOverride).

Called by PassengerPositionBrowserTests.swift with a JSON config on stdin (server URL, tokens).
First the browser may not use her location: the page says so in its status line and sends
nothing. Then the permission is granted (Browser.setPermission): the page sends the emulated fix
and the driver reads it back through GET /v1/rides/{id}/position/other; a moved fix replaces it;
the ride's cancellation stops the sharing. Prints one JSON report for the Swift test.
"""
import json, sys, time, urllib.error, urllib.request
from cdp import Browser

CONFIG = json.load(sys.stdin)
BASE, OUT, TOKENS = CONFIG["base"], CONFIG["out"], CONFIG["tokens"]
HERE = {"latitude": 51.507351, "longitude": -0.127758, "accuracy": 7}
MOVED = {"latitude": 51.50761, "longitude": -0.12801, "accuracy": 4}


def api(method, path, token, body=None):
    request = urllib.request.Request(BASE + path, method=method, headers={"Authorization": f"Bearer {token}"},
                                     data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as response:
        text = response.read()
        return json.loads(text) if text else None


def drivers_view(ride_id, until, what, timeout=15):
    """The driver's GET /position/other until `until(position)` holds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        position = api("GET", f"/v1/rides/{ride_id}/position/other", TOKENS["driver"])["position"]
        if until(position):
            return position
        time.sleep(0.1)
    sys.stderr.write(f"timed out waiting for {what}; the driver sees {position}\n")
    raise SystemExit(2)


def set_geolocation(b, setting):
    b.send("Browser.setPermission", permission={"name": "geolocation"}, setting=setting, origin=BASE)


def open_page(b):
    b.send("Page.navigate", url=BASE + "/")
    b.wait("document.readyState === 'complete' && document.getElementById('ride-state')?.dataset.state === 'accepted'"
           " && document.documentElement.dataset.live === 'on'", "the accepted ride on the page")


def main():
    report = {}
    b = Browser(CONFIG["chromium"], OUT)
    try:
        b.send("Page.enable")
        b.send("DOM.enable")
        passenger_id = next(a["id"] for a in api("GET", "/v1/accounts", TOKENS["admin"])["accounts"] if a["displayName"] == "Ana")
        code = api("POST", f"/v1/accounts/{passenger_id}/sign-in-codes", TOKENS["admin"], {})["code"]
        b.send("Page.navigate", url=BASE + "/")
        b.wait("document.readyState === 'complete' && !!document.getElementById('code')", "the sign-in form")
        b.js(f"document.getElementById('code').value = {json.dumps(code)}; document.getElementById('sign-in').click()")
        b.wait("document.readyState === 'complete' && !!document.getElementById('pickup')", "the request form")

        request = api("POST", "/v1/ride-requests", TOKENS["passenger"], {"pickup": "Main St 1", "dropoff": "Station"})
        ride = api("POST", f"/v1/ride-requests/{request['id']}/accept", TOKENS["driver"])
        b.send("Emulation.setGeolocationOverride", **HERE)

        # The browser may not use her location: said plainly, and nothing sent.
        set_geolocation(b, "denied")
        open_page(b)
        report["refused"] = b.wait("document.documentElement.dataset.position === 'refused' && "
                                   "document.getElementById('position-line').textContent", "the refused line")
        report["lineRole"] = b.js("document.getElementById('position-line').getAttribute('role')")
        report["lineVisible"] = b.js("document.getElementById('position-line').getClientRects().length > 0")
        time.sleep(1.5)  # long enough for a report the page should not have sent
        report["storedWhileRefused"] = api("GET", f"/v1/rides/{ride['id']}/position/other", TOKENS["driver"])["position"]

        # Allowed: the emulated fix reaches the driver, exactly.
        set_geolocation(b, "granted")
        open_page(b)
        report["shared"] = b.wait("document.documentElement.dataset.position === 'shared' && "
                                  "document.getElementById('position-line').textContent", "the sharing line")
        report["driverSees"] = drivers_view(ride["id"], lambda p: p is not None, "her first position")
        # She walks: the newer fix replaces it.
        b.send("Emulation.setGeolocationOverride", **MOVED)
        report["driverSeesMoved"] = drivers_view(ride["id"], lambda p: p and p["latitude"] == MOVED["latitude"], "her moved position")
        report["dispatcherSees"] = api("GET", f"/v1/rides/{ride['id']}/positions", TOKENS["dispatcher"])

        # The ride is cancelled: the server deleted her position and the page stops and says nothing.
        api("POST", f"/v1/rides/{ride['id']}/cancel", TOKENS["passenger"], {})
        report["afterCancel"] = b.wait("document.documentElement.dataset.position === 'stopped' && "
                                       "JSON.stringify(document.getElementById('position-line').textContent)", "the sharing to stop")
        report["driverSeesAfterCancel"] = api("GET", f"/v1/rides/{ride['id']}/position/other", TOKENS["driver"])["position"]
    except urllib.error.HTTPError as error:
        sys.stderr.write(f"API {error.code} {error.url}: {error.read().decode(errors='replace')}\n")
        raise SystemExit(4)
    finally:
        b.close()
    json.dump(report, sys.stdout)


main()
