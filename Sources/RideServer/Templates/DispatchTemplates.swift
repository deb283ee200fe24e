// The dispatcher page's Mustache templates. They are embedded (not bundle resources) so the
// single `ridebeacon` binary serves the page wherever it is copied. `{{x}}` escapes HTML.

enum DispatchTemplates {
    static let all: [String: String] = [
        "head": head, "dispatch": dispatch, "board": board, "login": login, "message": message, "cancel": cancel,
    ]

    static let head = """
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="stylesheet" href="/dispatch/assets/dispatch.css">
        """

    /// The whole page. Without JavaScript it reloads itself every 30 s (and has a reload
    /// link); with it, the board follows the event stream and the live region says what changed.
    static let dispatch = """
        <!doctype html>
        <html lang="en">
        <head>
        {{> head}}
        <title>Active rides — RideBeacon dispatch</title>
        <noscript><meta http-equiv="refresh" content="30"></noscript>
        <script src="/dispatch/assets/dispatch.js" defer></script>
        </head>
        <body data-last-event-id="{{lastEventID}}" data-board-path="{{boardPath}}">
        <header>
        <h1>Active rides</h1>
        <p>Signed in as {{dispatcherName}}. <a href="{{reloadPath}}">Reload the list</a></p>
        <form method="post" action="/dispatch/logout"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Sign out</button></form>
        </header>
        <main>
        {{#notice}}<p class="notice" role="status">{{.}}</p>{{/notice}}
        <div id="board">
        {{> board}}
        </div>
        <section aria-labelledby="changes-heading">
        <h2 id="changes-heading">Recent changes</h2>
        <div id="announcements" role="status" aria-live="polite" aria-atomic="false"></div>
        <noscript><p>Live updates need JavaScript; without it this page reloads every 30 seconds.</p></noscript>
        </section>
        </main>
        </body>
        </html>
        """

    /// Both tables; also served alone (`/dispatch/board`) for the script to swap in. Every cell
    /// has its column's name in `data-label`: under 48rem the rows stack and show it.
    static let board = """
        <p id="attention-summary"{{#hasAttention}} class="attention"{{/hasAttention}}>{{attentionSentence}}</p>
        <table id="rides" class="stacking">
        <caption>Active rides: {{rideCount}} shown, oldest first</caption>
        <thead><tr><th scope="col">State</th><th scope="col">Passenger</th><th scope="col">Driver</th><th scope="col">Vehicle</th><th scope="col">Minutes in state</th><th scope="col">Code</th><th scope="col">Pickup</th><th scope="col">Drop-off</th><th scope="col">Notes</th><th scope="col">Action</th></tr></thead>
        <tbody>
        {{#rides}}
        <tr data-ride-id="{{id}}" data-request-id="{{requestID}}" data-passenger="{{passenger}}" data-state="{{state}}" data-code="{{code}}"{{#attention}} data-attention="{{.}}" class="attention"{{/attention}}>
        <td class="state" data-label="State">{{state}}{{#proof}} <span class="proof">({{.}})</span>{{/proof}}</td><th scope="row" data-label="Passenger">{{passenger}}</th><td data-label="Driver">{{driver}}</td><td data-label="Vehicle">{{vehicle}}</td><td class="minutes" data-label="Minutes in state">{{minutes}}{{#eta}} (estimate {{.}}){{/eta}}{{#attention}}<strong class="flag"> ⚠ {{.}}</strong>{{/attention}}</td>
        <td class="code" data-label="Code">{{code}}</td><td data-label="Pickup">{{pickup}}</td><td data-label="Drop-off">{{dropoff}}</td><td data-label="Notes">{{notes}}</td>
        <td data-label="Action"><a class="button" href="/dispatch/rides/{{id}}/cancel" id="cancel-{{id}}" aria-label="Cancel the ride for {{passenger}}, code {{code}}">Cancel…</a></td>
        </tr>
        {{/rides}}
        {{^rides}}<tr><td colspan="10">No active rides.</td></tr>{{/rides}}
        </tbody>
        </table>
        {{#nextPath}}<p><a href="{{.}}">Next {{pageSize}} rides</a></p>{{/nextPath}}
        <table id="requests" class="stacking">
        <caption>Waiting for a driver: {{requestCount}} shown, oldest first</caption>
        <thead><tr><th scope="col">Passenger</th><th scope="col">Code</th><th scope="col">Pickup</th><th scope="col">Drop-off</th><th scope="col">Accessibility notes</th><th scope="col">Minutes waiting</th><th scope="col">Assign</th><th scope="col">Action</th></tr></thead>
        <tbody>
        {{#requests}}
        <tr data-request-id="{{id}}" data-passenger="{{passenger}}" data-state="requested" data-code="{{code}}">
        <th scope="row" data-label="Passenger">{{passenger}}</th><td class="code" data-label="Code">{{code}}</td><td data-label="Pickup">{{pickup}}</td><td data-label="Drop-off">{{dropoff}}</td><td data-label="Notes">{{notes}}</td><td class="minutes" data-label="Minutes waiting">{{minutes}}</td>
        <td data-label="Assign">{{#hasFreeDrivers}}<form method="post" action="/dispatch/requests/{{id}}/assign" class="assign"><input type="hidden" name="csrf" value="{{csrf}}">
        <label for="driver-{{id}}">Driver for {{passenger}}</label> <select id="driver-{{id}}" name="driverId">{{#freeDrivers}}<option value="{{id}}">{{name}}</option>{{/freeDrivers}}</select>
        <button type="submit" id="assign-{{id}}">Assign</button></form>{{/hasFreeDrivers}}{{^hasFreeDrivers}}No free driver{{/hasFreeDrivers}}</td>
        <td data-label="Action"><a class="button" href="/dispatch/requests/{{id}}/cancel" id="cancel-request-{{id}}" aria-label="Cancel the request of {{passenger}}, code {{code}}">Cancel…</a></td>
        </tr>
        {{/requests}}
        {{^requests}}<tr><td colspan="8">Nobody is waiting.</td></tr>{{/requests}}
        </tbody>
        </table>
        <h2 id="free-drivers-title">Free drivers: {{freeDriverCount}}</h2>
        {{#hasFreeDrivers}}<ul id="free-drivers" aria-labelledby="free-drivers-title">{{#freeDrivers}}<li data-driver-id="{{id}}">{{name}}</li>{{/freeDrivers}}</ul>{{/hasFreeDrivers}}
        {{^hasFreeDrivers}}<p id="free-drivers">No driver is free.</p>{{/hasFreeDrivers}}
        """

    /// The confirmation step of a cancellation: the reason is required and kept in the history.
    static let cancel = """
        <!doctype html>
        <html lang="en">
        <head>
        {{> head}}
        <title>{{#hasErrors}}Error: {{/hasErrors}}Cancel {{what}}? — RideBeacon dispatch</title>
        </head>
        <body>
        <main>
        <h1>Cancel {{what}}?</h1>
        {{#hasErrors}}<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" id="error-summary" autofocus>
        <h2 id="error-summary-title">There is a problem</h2>
        <ul><li><a href="#reason">{{reasonError}}</a></li></ul>
        </div>{{/hasErrors}}
        <p>{{summary}}</p>
        <form method="post" action="{{action}}" novalidate>
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p><label for="reason">Reason (kept in the ride's history)</label></p>
        {{#hasErrors}}<p class="field-error" id="reason-error"><span class="visually-hidden">Error:</span> {{reasonError}}</p>{{/hasErrors}}
        <p><textarea id="reason" name="reason" rows="3"{{#hasErrors}} aria-invalid="true" aria-describedby="reason-error"{{/hasErrors}}>{{reason}}</textarea></p>
        <p><button type="submit" class="warning" id="confirm-cancel">Cancel {{what}}</button> <a href="/dispatch" id="keep">Keep it</a></p>
        </form>
        </main>
        </body>
        </html>
        """

    static let login = """
        <!doctype html>
        <html lang="en">
        <head>
        {{> head}}
        <title>Sign in — RideBeacon dispatch</title>
        </head>
        <body>
        <main>
        <h1>Dispatcher sign-in</h1>
        {{#error}}<p class="error" role="alert" id="login-error">{{.}}</p>{{/error}}
        <form method="post" action="/dispatch/login"><input type="hidden" name="csrf" value="{{csrf}}">
        <p><label for="token">Sign-in code or dispatcher token</label></p>
        <p><input id="token" name="token" type="password" autocomplete="current-password" required{{#error}} aria-invalid="true" aria-describedby="login-error"{{/error}}></p>
        <p><button type="submit" id="login">Sign in</button></p>
        </form>
        <p>Ask an administrator for a sign-in code (<code>ridebeacon admin invite NAME</code>): eight digits, used once.</p>
        </main>
        </body>
        </html>
        """

    /// Errors and refusals (403 for other roles, 404, 409), with a way back.
    static let message = """
        <!doctype html>
        <html lang="en">
        <head>
        {{> head}}
        <title>{{heading}} — RideBeacon dispatch</title>
        </head>
        <body>
        <main>
        <h1>{{heading}}</h1>
        <p>{{message}}</p>
        <p><a href="{{linkPath}}">{{linkText}}</a></p>
        </main>
        </body>
        </html>
        """
}
