// The dispatcher page's Mustache templates. They are embedded (not bundle resources) so the
// single `ridebeacon` binary serves the page wherever it is copied. `{{x}}` escapes HTML.

enum DispatchTemplates {
    static let all: [String: String] = [
        "head": head, "dispatch": dispatch, "board": board, "login": login, "message": message,
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
        <section aria-labelledby="changes-heading">
        <h2 id="changes-heading">Recent changes</h2>
        <div id="announcements" role="status" aria-live="polite" aria-atomic="false"></div>
        <noscript><p>Live updates need JavaScript; without it this page reloads every 30 seconds.</p></noscript>
        </section>
        <div id="board">
        {{> board}}
        </div>
        </main>
        </body>
        </html>
        """

    /// Both tables; also served alone (`/dispatch/board`) for the script to swap in.
    static let board = """
        <table id="rides">
        <caption>Active rides: {{rideCount}} shown, oldest first</caption>
        <thead><tr><th scope="col">State</th><th scope="col">Passenger</th><th scope="col">Driver</th><th scope="col">Vehicle</th><th scope="col">Minutes in state</th><th scope="col">Action</th></tr></thead>
        <tbody>
        {{#rides}}
        <tr data-ride-id="{{id}}" data-request-id="{{requestID}}" data-passenger="{{passenger}}" data-state="{{state}}">
        <td class="state">{{state}}</td><th scope="row">{{passenger}}</th><td>{{driver}}</td><td>{{vehicle}}</td><td class="minutes">{{minutes}}</td>
        <td><form method="post" action="/dispatch/rides/{{id}}/cancel"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="cancel-{{id}}" aria-label="Cancel the ride for {{passenger}}">Cancel</button></form></td>
        </tr>
        {{/rides}}
        {{^rides}}<tr><td colspan="6">No active rides.</td></tr>{{/rides}}
        </tbody>
        </table>
        {{#nextPath}}<p><a href="{{.}}">Next {{pageSize}} rides</a></p>{{/nextPath}}
        <table id="requests">
        <caption>Waiting for a driver: {{requestCount}} shown, oldest first</caption>
        <thead><tr><th scope="col">Passenger</th><th scope="col">Pickup</th><th scope="col">Drop-off</th><th scope="col">Accessibility notes</th><th scope="col">Minutes waiting</th></tr></thead>
        <tbody>
        {{#requests}}
        <tr data-request-id="{{id}}" data-passenger="{{passenger}}" data-state="requested">
        <th scope="row">{{passenger}}</th><td>{{pickup}}</td><td>{{dropoff}}</td><td>{{notes}}</td><td class="minutes">{{minutes}}</td>
        </tr>
        {{/requests}}
        {{^requests}}<tr><td colspan="5">Nobody is waiting.</td></tr>{{/requests}}
        </tbody>
        </table>
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
        <form method="post" action="/dispatch/login">
        <p><label for="token">Dispatcher token</label></p>
        <p><input id="token" name="token" type="password" autocomplete="current-password" required{{#error}} aria-invalid="true" aria-describedby="login-error"{{/error}}></p>
        <p><button type="submit">Sign in</button></p>
        </form>
        <p>An administrator creates dispatcher tokens with <code>ridebeacon admin create-account --role dispatcher --name NAME</code>.</p>
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
