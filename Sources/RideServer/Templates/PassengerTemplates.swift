import Mustache

// The passenger page's Mustache templates (`/`), embedded like the dispatcher page's. Forms
// follow GOV.UK's patterns: a visible label per field, an error summary at the top whose links
// name and focus each field in error, the error again beside the field, values kept.

enum PassengerTemplates {
    static let all: [String: String] = [
        "p-head": head, "p-errors": errorSummary, "p-signin": signIn, "p-home": home, "p-status": status,
        "p-cancel": cancel,
    ]

    /// The templates are constants of this module: a parse error is a programming error that
    /// the page's first test catches.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in all {
            do { try library.register(text, named: name) } catch { fatalError("passenger template \(name): \(error)") }
        }
        return library
    }()

    static let head = """
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="stylesheet" href="/assets/passenger.css">
        """

    static let errorSummary = """
        {{#hasErrors}}<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" id="error-summary">
        <h2 id="error-summary-title">There is a problem</h2>
        <ul>{{/hasErrors}}{{#errors}}<li><a href="#{{fieldID}}">{{message}}</a></li>{{/errors}}{{#hasErrors}}</ul>
        </div>{{/hasErrors}}
        """

    static let signIn = """
        <!doctype html>
        <html lang="en">
        <head>
        {{> p-head}}
        <title>{{#hasErrors}}Error: {{/hasErrors}}Sign in — RideBeacon</title>
        </head>
        <body>
        <main>
        <h1>Sign in to RideBeacon</h1>
        {{> p-errors}}
        <form method="post" action="/sign-in" novalidate>
        <div class="field">
        <label for="code">Sign-in code</label>
        <p class="hint" id="code-hint">The eight digits your dispatcher gave you, for example 4821 0937.</p>
        {{#codeError}}<p class="field-error" id="code-error"><span class="visually-hidden">Error:</span> {{.}}</p>{{/codeError}}
        <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" spellcheck="false" value="{{code}}"
         aria-describedby="code-hint{{#codeError}} code-error{{/codeError}}"{{#codeError}} aria-invalid="true"{{/codeError}}>
        </div>
        <button type="submit" id="sign-in">Sign in</button>
        </form>
        <p>No code? Ask your dispatcher, or an administrator runs <code>ridebeacon admin invite ACCOUNT</code>.</p>
        </main>
        </body>
        </html>
        """

    /// Signed in: the current ride (followed live), or the form to request one.
    static let home = """
        <!doctype html>
        <html lang="en">
        <head>
        {{> p-head}}
        <title>{{title}} — RideBeacon</title>
        <noscript><meta http-equiv="refresh" content="30"></noscript>
        <script src="/assets/passenger.js" defer></script>
        </head>
        <body data-last-event-id="{{lastEventID}}">
        <header>
        <p>Signed in as {{passengerName}}.</p>
        <form method="post" action="/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="secondary">Sign out</button></form>
        </header>
        <main>
        {{#notice}}<p class="notice" role="status">{{.}}</p>{{/notice}}
        {{#current}}
        <h1>Your ride</h1>
        <div id="ride-live" class="visually-hidden" role="status" aria-live="polite"></div>
        <div id="ride-status">{{> p-status}}</div>
        <noscript><p>Without JavaScript this page reloads every 30 seconds.</p></noscript>
        <p><a class="button warning" id="cancel-link" href="/ride/cancel">Cancel this ride</a></p>
        {{/current}}
        {{#form}}
        <h1>Request a ride</h1>
        {{> p-errors}}
        <form method="post" action="/ride/request" novalidate>
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p>The driver will call out your name, {{passengerName}}.</p>
        <div class="field">
        <label for="pickup">Pickup</label>
        <p class="hint" id="pickup-hint">An address{{#hasPlaces}}, or a saved place's name{{/hasPlaces}}.</p>
        {{#pickupError}}<p class="field-error" id="pickup-error"><span class="visually-hidden">Error:</span> {{.}}</p>{{/pickupError}}
        <input id="pickup" name="pickup" type="text" value="{{pickup}}" autocomplete="off"{{#hasPlaces}} list="saved-places"{{/hasPlaces}}
         aria-describedby="pickup-hint{{#pickupError}} pickup-error{{/pickupError}}"{{#pickupError}} aria-invalid="true"{{/pickupError}}>
        </div>
        <div class="field">
        <label for="dropoff">Drop-off</label>
        <p class="hint" id="dropoff-hint">Where you are going{{#hasPlaces}}, or a saved place's name{{/hasPlaces}}.</p>
        {{#dropoffError}}<p class="field-error" id="dropoff-error"><span class="visually-hidden">Error:</span> {{.}}</p>{{/dropoffError}}
        <input id="dropoff" name="dropoff" type="text" value="{{dropoff}}" autocomplete="off"{{#hasPlaces}} list="saved-places"{{/hasPlaces}}
         aria-describedby="dropoff-hint{{#dropoffError}} dropoff-error{{/dropoffError}}"{{#dropoffError}} aria-invalid="true"{{/dropoffError}}>
        </div>
        <div class="field">
        <label for="notes">Notes for the driver (optional)</label>
        <p class="hint" id="notes-hint">For example: guide dog; please call out my name.</p>
        {{#notesError}}<p class="field-error" id="notes-error"><span class="visually-hidden">Error:</span> {{.}}</p>{{/notesError}}
        <textarea id="notes" name="notes" rows="3" aria-describedby="notes-hint{{#notesError}} notes-error{{/notesError}}"{{#notesError}} aria-invalid="true"{{/notesError}}>{{notes}}</textarea>
        </div>
        <button type="submit" id="request-ride">Request a ride</button>
        </form>
        {{/form}}
        {{#hasPlaces}}
        <h2>Your saved places</h2>
        <datalist id="saved-places">{{#places}}<option value="{{name}}">{{address}}</option>{{/places}}</datalist>
        <ul>{{#places}}<li><strong>{{name}}</strong>: {{address}}</li>{{/places}}</ul>
        {{/hasPlaces}}
        </main>
        </body>
        </html>
        """

    /// The ride's state; also served alone (`/ride/status`) for the page's script to swap in.
    static let status = """
        {{#current}}<div id="ride-state" data-state="{{state}}" data-code="{{code}}"{{#rideID}} data-ride-id="{{.}}"{{/rideID}}>
        <p class="sentence" id="ride-sentence">{{sentence}}</p>
        <dl>
        <dt>Ride code</dt><dd class="code">{{code}}</dd>
        <dt>State</dt><dd>{{state}}</dd>
        {{#driver}}<dt>Driver</dt><dd>{{.}}</dd>{{/driver}}
        {{#vehicle}}<dt>Vehicle</dt><dd>{{.}}</dd>{{/vehicle}}
        {{#eta}}<dt>Driver's estimate</dt><dd>{{.}}</dd>{{/eta}}
        <dt>Pickup</dt><dd>{{pickup}}</dd>
        <dt>Drop-off</dt><dd>{{dropoff}}</dd>
        </dl>
        {{#guideHint}}<p class="guide-hint" id="guide-hint">{{.}}</p>{{/guideHint}}
        </div>{{/current}}{{^current}}<div id="ride-state" data-state="none"><p class="sentence" id="ride-sentence">You have no open ride.</p></div>{{/current}}
        """

    /// The confirmation step before cancelling: a page of its own, so no single key press cancels.
    static let cancel = """
        <!doctype html>
        <html lang="en">
        <head>
        {{> p-head}}
        <title>Cancel your ride? — RideBeacon</title>
        </head>
        <body>
        <main>
        <h1>Cancel ride {{code}}?</h1>
        <p>{{sentence}}</p>
        <form method="post" action="/ride/cancel">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="confirm" value="yes">
        <button type="submit" class="warning" id="confirm-cancel">Yes, cancel ride {{code}}</button>
        </form>
        <p><a class="button secondary" href="/" id="keep-ride">No, keep my ride</a></p>
        </main>
        </body>
        </html>
        """
}
