"""Drives headless Chromium through the dispatcher page over the DevTools protocol.

Called by DispatchPageBrowserTests.swift with a JSON config on stdin (server URL, tokens,
paths). It signs in through the login form, moves a ride through its life through the API
(and the admin CLI for `confirmed`), and records what the page's DOM and live region showed
after each step without a reload; then cancels a ride with the page's own button, checks the
page at 200 % zoom and with JavaScript disabled, and saves screenshots. It prints one JSON
report on stdout for the Swift test to assert on; a step whose expected DOM never appears
fails here with the page's HTML on stderr.
"""
import base64, json, os, subprocess, sys, tempfile, time, urllib.request
import websocket  # PyPI websocket-client, installed into .venv by `make test`

CONFIG = json.load(sys.stdin)
BASE, OUT = CONFIG["base"], CONFIG["out"]


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="rb-chromium-")
        self.process = subprocess.Popen(
            [CONFIG["chromium"], "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-dev-shm-usage", "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not (os.path.exists(port_file) and open(port_file).read().strip()):
            if time.time() > deadline or self.process.poll() is not None:
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], suppress_origin=True, timeout=30)
        self.next_id = 0

    def send(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:  # events interleave with answers; only our answer matters
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def js(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def html(self):
        root = self.send("DOM.getDocument", depth=-1)["root"]["nodeId"]
        return self.send("DOM.getOuterHTML", nodeId=root)["outerHTML"]

    def wait(self, expression, what, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                value = self.js(expression)
            except RuntimeError:
                value = None  # mid-navigation
            if value:
                return value
            time.sleep(0.05)
        sys.stderr.write(f"timed out waiting for {what}\n{self.html()}\n")
        raise SystemExit(2)

    def screenshot(self, name):
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        path = os.path.join(OUT, name)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def close(self):
        self.ws.close()
        self.process.terminate()
        self.process.wait(timeout=10)


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
    b = Browser()
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
        b.js(f"document.getElementById('cancel-{second_ride}').click(); true")
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
        report["zoom200"] = b.js("({scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth})")
        report["zoomScreenshot"] = b.screenshot("dispatch-200-percent.png")

        # JavaScript off: the server-rendered table alone, with its refresh fallback.
        b.send("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
        b.send("Emulation.setScriptExecutionDisabled", value=True)
        b.send("Page.navigate", url=BASE + "/dispatch")
        time.sleep(1.0)
        html = b.html()
        report["noScript"] = {"hasRidesTable": '<table id="rides">' in html, "rideRows": html.count("<tr data-ride-id="),
                              "liveScriptRan": 'data-live="on"' in html, "metaRefresh": 'http-equiv="refresh"' in html}
    finally:
        b.close()
    json.dump(report, sys.stdout)


main()
