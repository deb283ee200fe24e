"""Keyboard-only journeys and axe-core checks of the passenger page (/) and the dispatcher
page's acts, in headless Chromium over the DevTools protocol.

Called by PagesBrowserTests.swift with a JSON config on stdin (server URL, tokens, paths).
Every step is done with Tab, Enter and typed text only. axe-core (WCAG 2.2 AA tags) runs on
each page at 1280 px and at 390 px (a phone), where horizontal overflow is measured too. It
prints one JSON report for the Swift test to assert on; a step whose page never appears fails
here with the page's HTML on stderr.
"""
import json, sys, urllib.error, urllib.request
from cdp import Browser

CONFIG = json.load(sys.stdin)
BASE, OUT, TOKENS = CONFIG["base"], CONFIG["out"], CONFIG["tokens"]


def api(method, path, token, body=None):
    request = urllib.request.Request(BASE + path, method=method, headers={"Authorization": f"Bearer {token}"},
                                     data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def loaded(b, condition, what):
    return b.wait(f"document.readyState === 'complete' && ({condition})", what)


# Words (and ride codes) the layout broke across two lines: a word's text range with boxes on
# more than one line. Hyphenated words may break at their hyphen; hidden text is not looked at.
BROKEN_WORDS = """(() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest('.visually-hidden, datalist, option, select, script, style, noscript') || !el.getClientRects().length) continue;
    for (const m of node.textContent.matchAll(/\\S+/g)) {
      if (/[-\u2010-\u2014\\/]/.test(m[0])) continue;
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(m[0]);
    }
  }
  return broken;
})()"""


def audit(b, report, name):
    """axe at 1280 px, at 1280 px zoomed to 200 % (a 640 px wide layout) and at 390 px; words
    broken mid-word at 1280 px and 200 %; the page's width at 390 px. Leaves the phone width on."""
    results = {}
    for key, width, mobile in [("1280", 1280, False), ("zoom200", 640, False), ("390", 390, True)]:
        b.viewport(width, mobile)
        b.js("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        results[key] = b.axe_violations()
        if key != "390":
            results["brokenWords" + key] = b.js(BROKEN_WORDS)
        if key == "zoom200":
            results["overflowZoom200"] = b.horizontal_overflow()
    results["overflow390"] = b.horizontal_overflow()
    report["audits"][name] = results


def focused(b):
    return b.js("document.activeElement?.id ?? ''")


def error_summary(b):
    return b.js("({title: document.title, links: [...document.querySelectorAll('.error-summary a')].map(a => a.textContent),"
                " invalid: [...document.querySelectorAll('[aria-invalid=true]')].map(e => e.id)})")


def open_requests():
    return [r["id"] for r in api("GET", "/v1/ride-requests", TOKENS["dispatcher"])["rideRequests"]]


def own_request(token, request_id):
    return next(r for r in api("GET", "/v1/ride-requests", token)["rideRequests"] if r["id"] == request_id)


def passenger_journey(b, report):
    passenger_id = next(a["id"] for a in api("GET", "/v1/accounts", TOKENS["admin"])["accounts"] if a["displayName"] == "Ana")
    code = api("POST", f"/v1/accounts/{passenger_id}/sign-in-codes", TOKENS["admin"], {})["code"]  # admins only (issue 24)
    journey = report["passenger"] = {}

    b.viewport(390, True)
    b.send("Page.navigate", url=BASE + "/")
    loaded(b, "!!document.getElementById('code')", "the sign-in form")
    audit(b, report, "passenger sign-in")
    # A wrong code first: its own error, nothing signed in.
    b.tab_to("code"); b.type("1234"); b.tab_to("sign-in"); b.key("Enter")
    loaded(b, "!!document.querySelector('.error-summary')", "the sign-in error")
    journey["badCode"] = error_summary(b)
    audit(b, report, "passenger sign-in error")
    b.tab_to("code")
    for _ in range(8):
        b.key("Backspace")
    b.type(code); b.tab_to("sign-in"); b.key("Enter")
    loaded(b, "!!document.getElementById('pickup')", "the request form")
    audit(b, report, "passenger request form")

    # Sending the form empty names both missing fields and creates nothing.
    before = len(open_requests())
    b.tab_to("request-ride"); b.key("Enter")
    loaded(b, "!!document.querySelector('.error-summary')", "the request errors")
    journey["emptyRequest"] = error_summary(b)
    journey["focusAfterRequestError"] = focused(b)
    journey["requestsAfterEmpty"] = len(open_requests()) - before
    audit(b, report, "passenger request errors")

    # Issue 25: saved places added, refused again, renamed and removed on the page.
    b.tab_to("place-name"); b.type("home")
    b.tab_to("place-address"); b.type("Main St 1")
    b.tab_to("save-place"); b.key("Enter")
    journey["placeSaved"] = loaded(b, "document.querySelector('.notice')?.textContent.includes('Saved home') && document.querySelector('.notice').textContent",
                                   "the saved place")
    audit(b, report, "passenger place saved")
    b.tab_to("place-name"); b.type("Home")
    b.tab_to("place-address"); b.type("Elm St 9")
    b.tab_to("save-place"); b.key("Enter")
    loaded(b, "!!document.querySelector('.error-summary')", "the place error")
    journey["placeTwice"] = error_summary(b)
    journey["focusAfterPlaceError"] = focused(b)
    audit(b, report, "passenger place error")
    b.tab_to("rename-0"); b.type("flat"); b.tab_to("rename-0-button"); b.key("Enter")
    journey["placeRenamed"] = loaded(b, "document.querySelector('.notice')?.textContent.includes('Renamed') && document.querySelector('.notice').textContent",
                                     "the renamed place")
    b.tab_to("remove-0"); b.key("Enter")
    journey["placeRemoved"] = loaded(b, "document.querySelector('.notice')?.textContent.includes('Removed') && document.querySelector('.notice').textContent",
                                     "the removed place")
    journey["placesLeft"] = api("GET", "/v1/places", CONFIG["tokens"]["passenger"])["places"]

    # Issue 26: the page in Spanish by its picker, then back to English, by keyboard.
    b.tab_to("language"); b.key("ArrowDown")
    b.wait("document.getElementById('language').value === 'es'", "Español chosen")
    b.tab_to("change-language"); b.key("Enter")
    loaded(b, "document.documentElement.lang === 'es' && !!document.getElementById('pickup')", "the page in Spanish")
    journey["spanish"] = b.js("document.querySelector('h1').textContent + ' | ' + document.querySelector('label[for=pickup]').textContent")
    audit(b, report, "passenger page in Spanish")
    b.tab_to("language"); b.key("ArrowUp")
    b.tab_to("change-language"); b.key("Enter")
    loaded(b, "document.documentElement.lang === 'en' && !!document.getElementById('pickup')", "the page in English again")

    b.tab_to("pickup"); b.type("Main St 1")
    b.tab_to("dropoff"); b.type("Central Station")
    b.tab_to("notes"); b.type("guide dog")
    b.tab_to("request-ride"); b.key("Enter")
    loaded(b, "document.getElementById('ride-state')?.dataset.state === 'requested' && document.documentElement.dataset.live === 'on'",
           "the waiting ride")
    b.js("window.__sameDocument = 'yes'")
    short = b.js("document.getElementById('ride-state').dataset.code")
    journey["shortCode"] = short
    audit(b, report, "passenger waiting")

    # The driver accepts by the short code; the page hears it without a reload.
    ride = api("POST", f"/v1/ride-requests/{short}/accept", TOKENS["driver"])
    b.wait("document.getElementById('ride-state')?.dataset.state === 'accepted' && document.getElementById('ride-live').textContent",
           "the accepted ride")
    api("POST", f"/v1/rides/{ride['id']}/eta", TOKENS["driver"], {"minutes": 7})
    journey["accepted"] = b.wait("document.getElementById('ride-live').textContent.includes('7 minutes') && "
                                 "document.getElementById('ride-live').textContent", "the ETA announced")
    journey["liveRegion"] = b.js("({role: document.getElementById('ride-live').getAttribute('role'),"
                                 " live: document.getElementById('ride-live').getAttribute('aria-live')})")
    journey["sameDocument"] = b.js("window.__sameDocument") == "yes"
    audit(b, report, "passenger accepted")
    report["screenshots"].append(b.screenshot("passenger-390.png"))

    # Issue 22: the arrival says what to do in one sentence, never a command line; once the
    # phone's guide reports in, the page says so (heard through the live region, no reload).
    api("POST", f"/v1/rides/{ride['id']}/arrive", TOKENS["driver"])
    journey["arrived"] = b.wait("document.getElementById('ride-state')?.dataset.state === 'arrived' && "
                                "document.getElementById('ride-live').textContent.includes('arrived') && "
                                "document.getElementById('ride-live').textContent", "the arrival")
    journey["arrivalStatus"] = b.js("document.getElementById('ride-status').textContent")
    journey["arrivalCode"] = b.js("document.querySelectorAll('#ride-status code, #ride-status pre, #ride-status kbd').length")
    audit(b, report, "passenger arrived")

    # Issue 37, point 2: at the kerb she asks Ben to come; each answer is said on the page as it
    # happens, and nothing of him before his device sent it.
    kerb_live = "document.getElementById('kerb-live')?.textContent ?? ''"
    journey["kerbControls"] = b.js("[...document.querySelectorAll('#kerb button, #kerb summary, #kerb label')].map(e => e.textContent)")
    b.tab_to("ask-come"); b.key("Enter")
    journey["comeAsked"] = b.wait(f"({kerb_live}).includes('Asking Ben to come to you') && ({kerb_live})", "the come request said")
    api("POST", f"/v1/rides/{ride['id']}/come/answer", TOKENS["driver"], {"answer": "received"})
    journey["comeReceived"] = b.wait(f"({kerb_live}).includes(\"Ben's phone has your request\") && ({kerb_live})", "his phone's receipt")
    api("POST", f"/v1/rides/{ride['id']}/come/answer", TOKENS["driver"], {"answer": "coming"})
    journey["comeAnswered"] = b.wait(f"({kerb_live}).includes('Ben is coming to you') && ({kerb_live})", "his answer")
    journey["sameDocumentKerb"] = b.js("window.__sameDocument") == "yes"
    audit(b, report, "passenger at the kerb")
    passenger_token = CONFIG["tokens"]["passenger"]
    api("POST", f"/v1/rides/{ride['id']}/guide", passenger_token, {"report": "started"})
    journey["guiding"] = b.wait("document.getElementById('ride-live').textContent.includes('guiding you') && "
                                "document.getElementById('ride-live').textContent", "the guide reporting in")
    journey["guidingStatus"] = b.js("document.getElementById('ride-status').textContent")
    journey["sameDocumentArrived"] = b.js("window.__sameDocument") == "yes"
    audit(b, report, "passenger guided")

    # Cancel asks first; "No" is a link back, "Yes" cancels.
    b.tab_to("cancel-link"); b.key("Enter")
    loaded(b, "!!document.getElementById('confirm-cancel')", "the cancel confirmation")
    journey["stateBeforeConfirm"] = api("GET", f"/v1/rides/{ride['id']}", TOKENS["driver"])["state"]
    audit(b, report, "passenger cancel confirmation")
    b.tab_to("confirm-cancel"); b.key("Enter")
    journey["cancelNotice"] = loaded(b, "document.querySelector('.notice')?.textContent", "the cancelled notice")
    journey["stateAfterConfirm"] = api("GET", f"/v1/rides/{ride['id']}", TOKENS["driver"])["state"]


def dispatcher_journey(b, report):
    journey = report["dispatcher"] = {}
    b.viewport(390, True)
    b.send("Page.navigate", url=BASE + "/dispatch/login")
    loaded(b, "!!document.getElementById('token')", "the dispatcher sign-in")
    b.tab_to("token"); b.type(TOKENS["dispatcher"]); b.tab_to("login"); b.key("Enter")
    loaded(b, "location.pathname === '/dispatch' && !!document.getElementById('rides')", "the dispatcher page")

    request = api("POST", "/v1/ride-requests", TOKENS["passenger2"],
                  {"pickup": "Platform 4, Central Station, by the lifts", "dropoff": "Riverside Community Centre",
                   "accessibilityNotes": "guide dog; please call out my name"})
    b.wait(f"!!document.getElementById('assign-{request['id']}')", "the waiting request's assign button")
    journey["requestCells"] = b.js(f"[...document.querySelector('#requests tr[data-request-id=\"{request['id']}\"]').children].slice(0, 2).map(c => c.textContent)")
    journey["attention"] = b.js("(() => { const s = document.getElementById('attention-summary');"
                                " return {text: s.textContent,"
                                " beforeRides: !!(s.compareDocumentPosition(document.getElementById('rides')) & Node.DOCUMENT_POSITION_FOLLOWING),"
                                " beforeChanges: !!(s.compareDocumentPosition(document.getElementById('changes-heading')) & Node.DOCUMENT_POSITION_FOLLOWING)}; })()")
    audit(b, report, "dispatcher board")
    cancel = b.js(f"(() => {{ const r = document.getElementById('cancel-request-{request['id']}').getBoundingClientRect();"
                  " return {left: r.left, right: r.right, innerWidth: window.innerWidth}; })()")
    journey["cancelReachable390"] = cancel

    # Assign with the keyboard: the select already offers the one free driver.
    b.tab_to(f"driver-{request['id']}"); b.tab_to(f"assign-{request['id']}"); b.key("Enter")
    journey["assignNotice"] = loaded(b, "location.search.includes('assigned=') && document.querySelector('.notice')?.textContent", "the assign notice")
    ride = own_request(TOKENS["passenger2"], request["id"])["rideId"]
    journey["assignedRide"] = {k: v for k, v in api("GET", f"/v1/rides/{ride}", TOKENS["dispatcher"]).items() if k in ("state", "driver")}
    journey["rideCells"] = b.js(f"[...document.querySelector('#rides tr[data-ride-id=\"{ride}\"]').children].map(c => c.textContent)")
    audit(b, report, "dispatcher board with a ride")
    journey["overflowWithRide390"] = b.horizontal_overflow()
    report["screenshots"].append(b.screenshot("dispatch-390.png"))

    # Cancel the ride: Enter on Cancel only opens the question; no reason, no cancellation.
    b.tab_to(f"cancel-{ride}"); b.key("Enter")
    loaded(b, "!!document.getElementById('reason')", "the ride's cancel confirmation")
    journey["stateOnConfirmationPage"] = api("GET", f"/v1/rides/{ride}", TOKENS["dispatcher"])["state"]
    journey["cancelButton"] = b.js("(() => { const s = getComputedStyle(document.getElementById('confirm-cancel'));"
                                   " return {background: s.backgroundColor, color: s.color}; })()")
    audit(b, report, "dispatcher cancel confirmation")
    b.tab_to("confirm-cancel"); b.key("Enter")
    loaded(b, "!!document.querySelector('.error-summary')", "the missing reason error")
    journey["missingReason"] = error_summary(b)
    journey["focusAfterMissingReason"] = focused(b)
    journey["stateAfterMissingReason"] = api("GET", f"/v1/rides/{ride}", TOKENS["dispatcher"])["state"]
    audit(b, report, "dispatcher cancel error")
    b.tab_to("reason"); b.type("Passenger phoned: plans changed"); b.tab_to("confirm-cancel"); b.key("Enter")
    journey["cancelNotice"] = loaded(b, "location.search.includes('cancelled=') && document.querySelector('.notice')?.textContent", "the cancel notice")
    journey["stateAfterCancel"] = api("GET", f"/v1/rides/{ride}", TOKENS["dispatcher"])["state"]

    # A waiting request is cancelled the same way.
    second = api("POST", "/v1/ride-requests", TOKENS["passenger2"], {"pickup": "Elm St 5", "dropoff": "Museum"})
    b.send("Page.navigate", url=BASE + "/dispatch")
    loaded(b, f"!!document.getElementById('cancel-request-{second['id']}')", "the second request")
    b.tab_to(f"cancel-request-{second['id']}"); b.key("Enter")
    loaded(b, "!!document.getElementById('reason')", "the request's cancel confirmation")
    b.tab_to("reason"); b.type("Duplicate booking"); b.tab_to("confirm-cancel"); b.key("Enter")
    journey["requestCancelNotice"] = loaded(b, "location.search.includes('request=') && document.querySelector('.notice')?.textContent", "the request cancel notice")
    journey["requestStatusAfterCancel"] = own_request(TOKENS["passenger2"], second["id"])["status"]


def main():
    report = {"audits": {}, "screenshots": []}
    b = Browser(CONFIG["chromium"], OUT)
    try:
        b.send("Page.enable")
        b.send("DOM.enable")
        passenger_journey(b, report)
        dispatcher_journey(b, report)
    except urllib.error.HTTPError as error:
        sys.stderr.write(f"API {error.code} {error.url}: {error.read().decode(errors='replace')}\n")
        raise SystemExit(4)
    finally:
        b.close()
    json.dump(report, sys.stdout)


main()
