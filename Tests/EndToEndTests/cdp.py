"""Headless Chromium over the DevTools protocol, shared by the page tests (dispatch_page.py,
pages_check.py): start it, evaluate script, wait for a condition, press keys, run axe-core."""
import base64, json, os, subprocess, sys, tempfile, time, urllib.request
import websocket  # PyPI websocket-client, installed into .venv by `make test`

# WCAG 2.2 AA as axe-core tags its rules.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]

KEYS = {
    "Tab": {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9},
    "Enter": {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
    "Backspace": {"key": "Backspace", "code": "Backspace", "windowsVirtualKeyCode": 8},
    "ArrowDown": {"key": "ArrowDown", "code": "ArrowDown", "windowsVirtualKeyCode": 40},
    "ArrowUp": {"key": "ArrowUp", "code": "ArrowUp", "windowsVirtualKeyCode": 38},
}


def axe_source():
    """axe-core as shipped inside the selenium-axe-python wheel (no npm needed). Not
    axe-selenium-python: its newest release for Python 3.11 bundles axe-core 3.1, which has no
    WCAG 2.1 or 2.2 rules."""
    import selenium_axe_python
    path = os.path.join(os.path.dirname(selenium_axe_python.__file__), "axe-core", "axe.min.js")
    with open(path) as f:
        return f.read()


class Browser:
    def __init__(self, chromium, out):
        self.out = out
        self.profile = tempfile.mkdtemp(prefix="rb-chromium-")
        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
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
        self.axe = None

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
        path = os.path.join(self.out, name)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def viewport(self, width, mobile=False):
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=844 if mobile else 800,
                  deviceScaleFactor=3 if mobile else 1, mobile=mobile)

    def key(self, name):
        spec = KEYS[name]
        self.send("Input.dispatchKeyEvent", type="keyDown", **spec)
        self.send("Input.dispatchKeyEvent", type="keyUp", **{k: v for k, v in spec.items() if k != "text"})

    def type(self, text):
        self.send("Input.insertText", text=text)

    def tab_to(self, element_id, limit=80):
        """Presses Tab until the element has focus; fails loudly when it never gets it."""
        for _ in range(limit):
            self.key("Tab")
            if self.js(f"document.activeElement?.id === {json.dumps(element_id)}"):
                return
        sys.stderr.write(f"Tab never reached #{element_id}\n{self.html()}\n")
        raise SystemExit(3)

    def horizontal_overflow(self):
        return self.js("({scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth})")

    def axe_violations(self):
        """WCAG 2.2 AA violations on the current page: [{id, impact, targets}]."""
        if self.axe is None:
            self.axe = axe_source()
        self.send("Runtime.evaluate", expression=self.axe)
        # As JSON text: DevTools hands an empty array back as an empty object.
        return json.loads(self.js("axe.run(document, {runOnly: {type: 'tag', values: %s}})"
                                  ".then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact,"
                                  " targets: v.nodes.map(n => n.target.join(' '))}))))" % json.dumps(WCAG_TAGS)))

    def close(self):
        self.ws.close()
        self.process.terminate()
        self.process.wait(timeout=10)
