"""Drives headless Chromium through the dispatcher page over the DevTools protocol.

Called by DispatchPageBrowserTests.swift with a JSON config on stdin (server URL, tokens,
paths). It signs in through the login form, moves a ride through its life through the API
(and the admin CLI for `confirmed`), and records what the page's DOM and live region showed
after each step without a reload; then cancels a ride with the page's own button, checks the
page at 200 % zoom and with JavaScript disabled, and saves screenshots. It prints one JSON
report on stdout for the Swift test to assert on; a step whose expected DOM never appears
fails here with the page's HTML on stderr.
"""
import json, os, subprocess, sys, time, urllib.request
from cdp import Browser

CONFIG = json.load(sys.stdin)
BASE, OUT = CONFIG["base"], CONFIG["out"]


def api(method, path, token, body=None):
    request = urllib.request.Request(BASE + path, method=method, headers={"Authorization": f"Bearer {token}"},
                                     data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def state_cell(request_id):
    return f"document.querySelector('#rides tr[data-request-id=\"{request_id}\"] td.state')?.textContent"


def announced(text):
    return f"[...document.querySelectorAll('#announcements p')].some(p => p.textContent === {json.dumps(text)})"


def main():
    os.makedirs(OUT, exist_ok=True)
    tokens = CONFIG["tokens"]
    b = Browser(CONFIG["chromium"], OUT)
    report = {"steps": []}
    try:
        b.send("Page.enable")
        b.send("DOM.enable")
        b.send("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
        b.send("Page.navigate", url=BASE + "/dispatch")
        report["unsignedLandsOn"] = b.wait("document.readyState === 'complete' && document.getElementById('token') && location.pathname", "login form")
        b.js(f"document.getElementById('token').value = {json.dumps(tokens['dispatcher'])}; document.querySelector('form').submit(); true")
        b.wait("location.pathname === '/dispatch' && document.documentElement.dataset.stream === 'open'", "the page with its stream open")
        b.js("window.__sameDocument = 'yes'")

        def step(action, do, state):
            started = time.time()
            do()
            if state is None:
                b.wait(f"!document.querySelector('#rides tr[data-request-id=\"{request_id}\"]') && {announced('Ride for Ana: completed')}", "the row leaving")
                cell = None
            elif state == "requested":
                cell = b.wait(f"document.querySelector('#requests tr[data-request-id=\"{request_id}\"]') && 'requested'", "the new request")
            else:
                cell = b.wait(f"({state_cell(request_id)} === '{state}') && '{state}'", f"state {state}")
            text = f"Ride for Ana: {state or 'completed'}"
            b.wait(announced(text), f"announcement {text!r}")
            report["steps"].append({"action": action, "cell": cell, "announced": text, "seconds": round(time.time() - started, 2),
                                    "sameDocument": b.js("window.__sameDocument") == "yes"})

        holder = {}
        def request():
            holder["request"] = api("POST", "/v1/ride-requests", tokens["passenger"],
                                    {"passengerName": "Ana", "pickup": "Main St 1", "dropoff": "Central Station"})["id"]
        request()
        request_id = holder["request"]
        step("request", lambda: None, "requested")
        step("accept", lambda: holder.update(ride=api("POST", f"/v1/ride-requests/{request_id}/accept", tokens["driver"])["id"]), "accepted")
        ride = holder["ride"]
        report["rowCells"] = b.js(f"[...document.querySelector('#rides tr[data-ride-id=\"{ride}\"]').children].slice(0, 5).map(c => c.textContent)")
        step("arrive", lambda: api("POST", f"/v1/rides/{ride}/arrive", tokens["driver"]), "arrived")
        step("confirm (admin CLI)", lambda: subprocess.run([CONFIG["ridebeacon"], "admin", "confirm-ride", ride, "--database", CONFIG["database"]],
                                                           check=True, capture_output=True), "confirmed")
        report["screenshot"] = b.screenshot("dispatch.png")
        step("complete", lambda: api("POST", f"/v1/rides/{ride}/complete", tokens["driver"]), None)

        # Cancel with the page's own button: a plain form post, so the page reloads with a notice.
        second = api("POST", "/v1/ride-requests", tokens["passenger"], {"passengerName": "Ana", "pickup": "Elm St 5", "dropoff": "Museum"})["id"]
        second_ride = api("POST", f"/v1/ride-requests/{second}/accept", tokens["driver"])["id"]
        b.wait(f"document.getElementById('cancel-{second_ride}') !== null", "the second ride's cancel button")
        # Cancel asks for the reason on a page of its own before anything changes.
        b.js(f"document.getElementById('cancel-{second_ride}').click(); true")
        b.wait("document.readyState === 'complete' && !!document.getElementById('reason')", "the cancel confirmation")
        b.js("document.getElementById('reason').value = 'passenger phoned'; document.getElementById('confirm-cancel').click(); true")
        notice = b.wait("location.search.includes('cancelled=') && document.readyState === 'complete' && document.querySelector('.notice')?.textContent", "the cancel notice")
        report["cancel"] = {"notice": notice, "rowGone": b.js(f"!document.querySelector('tr[data-ride-id=\"{second_ride}\"]')"),
                            "apiState": api("GET", f"/v1/rides/{second_ride}", tokens["driver"])["state"]}

        # 200 % zoom of a 1280 px wide window: 640 CSS px; nothing may scroll sideways.
        third = api("POST", "/v1/ride-requests", tokens["passenger"], {"passengerName": "Ana", "pickup": "Oak Road 12, back entrance by the bakery", "dropoff": "University hospital, main entrance"})["id"]
        api("POST", f"/v1/ride-requests/{third}/accept", tokens["driver"])
        api("POST", "/v1/ride-requests", tokens["otherPassenger"], {"passengerName": "Bea", "pickup": "Platform 4, Central Station, by the lifts",
            "dropoff": "Riverside Community Centre", "accessibilityNotes": "guide dog; please come to the platform and call out my name"})
        b.send("Emulation.setDeviceMetricsOverride", width=640, height=800, deviceScaleFactor=2, mobile=False)
        b.send("Page.navigate", url=BASE + "/dispatch")
        b.wait("document.readyState === 'complete' && document.querySelectorAll('#rides tbody tr[data-ride-id], #requests tbody tr[data-request-id]').length >= 2 && true", "the zoomed page")
        report["zoom200"] = b.js("({scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth, innerWidth: window.innerWidth})")
        report["zoomScreenshot"] = b.screenshot("dispatch-200-percent.png")

        # JavaScript off: the server-rendered table alone, with its refresh fallback.
        b.send("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
        b.send("Emulation.setScriptExecutionDisabled", value=True)
        b.send("Page.navigate", url=BASE + "/dispatch")
        time.sleep(1.0)
        html = b.html()
        report["noScript"] = {"hasRidesTable": '<table id="rides"' in html, "rideRows": html.count("<tr data-ride-id="),
                              "liveScriptRan": 'data-live="on"' in html, "metaRefresh": 'http-equiv="refresh"' in html}
    finally:
        b.close()
    json.dump(report, sys.stdout)


main()
