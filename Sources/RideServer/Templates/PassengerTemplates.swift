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
        {{#hasErrors}}<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" id="error-summary" autofocus>
        <h2 id="error-summary-title">{{#t}}{{t.error_summary_title}}{{/t}}{{^t}}There is a problem{{/t}}</h2>
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
        <form method="post" action="/sign-in" novalidate><input type="hidden" name="csrf" value="{{csrf}}">
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
        <html lang="{{lang}}">
        <head>
        {{> p-head}}
        <title>{{title}} — RideBeacon</title>
        <noscript><meta http-equiv="refresh" content="30"></noscript>
        <script src="/assets/passenger.js" defer></script>
        </head>
        <body data-last-event-id="{{lastEventID}}">
        <header>
        <p>{{t.signed_in_as}}</p>
        <form method="post" action="/language" class="language"><input type="hidden" name="csrf" value="{{csrf}}">
        <label for="language">{{t.language_label}}</label>
        <select id="language" name="language">{{#languages}}<option value="{{code}}" lang="{{code}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/languages}}</select>
        <button type="submit" class="secondary" id="change-language">{{t.language_button}}</button>
        </form>
        <form method="post" action="/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="secondary">{{t.sign_out}}</button></form>
        </header>
        <main>
        {{#notice}}<p class="notice" role="status">{{.}}</p>{{/notice}}
        {{#current}}
        <h1>{{t.title_ride}}</h1>
        <div id="ride-live" class="visually-hidden" role="status" aria-live="polite"></div>
        <div id="ride-status">{{> p-status}}</div>
        <p id="position-line" class="position-line" role="status" data-csrf="{{csrf}}" data-sharing="{{t.position_sharing}}"
         data-refused="{{t.position_refused}}" data-unavailable="{{t.position_unavailable}}"></p>
        <noscript><p>{{t.no_script_reload}}</p></noscript>
        <p><a class="button warning" id="cancel-link" href="/ride/cancel">{{t.cancel_link}}</a></p>
        {{/current}}
        {{#form}}
        <h1>{{t.title_request}}</h1>
        {{> p-errors}}
        <form method="post" action="/ride/request" novalidate>
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p>{{t.driver_calls_name}}</p>
        <div class="field">
        <label for="pickup">{{t.pickup_label}}</label>
        <p class="hint" id="pickup-hint">{{#hasPlaces}}{{t.pickup_hint_places}}{{/hasPlaces}}{{^hasPlaces}}{{t.pickup_hint}}{{/hasPlaces}}</p>
        {{#pickupError}}<p class="field-error" id="pickup-error"><span class="visually-hidden">{{t.error_prefix}}</span> {{.}}</p>{{/pickupError}}
        <input id="pickup" name="pickup" type="text" value="{{pickup}}" autocomplete="off"{{#hasPlaces}} list="saved-places"{{/hasPlaces}}
         aria-describedby="pickup-hint{{#pickupError}} pickup-error{{/pickupError}}"{{#pickupError}} aria-invalid="true"{{/pickupError}}>
        </div>
        <div class="field">
        <label for="dropoff">{{t.dropoff_label}}</label>
        <p class="hint" id="dropoff-hint">{{#hasPlaces}}{{t.dropoff_hint_places}}{{/hasPlaces}}{{^hasPlaces}}{{t.dropoff_hint}}{{/hasPlaces}}</p>
        {{#dropoffError}}<p class="field-error" id="dropoff-error"><span class="visually-hidden">{{t.error_prefix}}</span> {{.}}</p>{{/dropoffError}}
        <input id="dropoff" name="dropoff" type="text" value="{{dropoff}}" autocomplete="off"{{#hasPlaces}} list="saved-places"{{/hasPlaces}}
         aria-describedby="dropoff-hint{{#dropoffError}} dropoff-error{{/dropoffError}}"{{#dropoffError}} aria-invalid="true"{{/dropoffError}}>
        </div>
        <div class="field">
        <label for="notes">{{t.notes_label}}</label>
        <p class="hint" id="notes-hint">{{t.notes_hint}}</p>
        {{#notesError}}<p class="field-error" id="notes-error"><span class="visually-hidden">{{t.error_prefix}}</span> {{.}}</p>{{/notesError}}
        <textarea id="notes" name="notes" rows="3" aria-describedby="notes-hint{{#notesError}} notes-error{{/notesError}}"{{#notesError}} aria-invalid="true"{{/notesError}}>{{notes}}</textarea>
        </div>
        <button type="submit" id="request-ride">{{t.request_button}}</button>
        </form>
        {{/form}}
        {{#hasAccountNotices}}<section aria-labelledby="account-heading" id="account-notices">
        <h2 id="account-heading">{{t.account_heading}}</h2>
        {{#accountNotices}}<p class="account-notice">{{.}}</p>{{/accountNotices}}
        </section>{{/hasAccountNotices}}
        <section aria-labelledby="places-heading" id="places">
        <h2 id="places-heading">{{t.saved_places}}</h2>
        {{#hasPlaceErrors}}<div class="error-summary" role="alert" aria-labelledby="place-error-summary-title" tabindex="-1" id="error-summary" autofocus>
        <h2 id="place-error-summary-title">{{t.error_summary_title}}</h2>
        <ul>{{#placeErrors}}<li><a href="#{{fieldID}}">{{message}}</a></li>{{/placeErrors}}</ul>
        </div>{{/hasPlaceErrors}}
        {{#hasPlaces}}
        <datalist id="saved-places">{{#places}}<option value="{{name}}">{{address}}</option>{{/places}}</datalist>
        <ul class="places">{{#places}}<li><strong>{{name}}</strong>: {{address}}
        <form method="post" action="/places/rename" novalidate><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="from" value="{{name}}">
        <div><label for="rename-{{index}}">{{renameLabel}}</label>
        {{#renameError}}<p class="field-error" id="rename-{{index}}-error"><span class="visually-hidden">{{t.error_prefix}}</span> {{.}}</p>{{/renameError}}
        <input id="rename-{{index}}" name="to" type="text" autocomplete="off"{{#renameError}} aria-invalid="true" aria-describedby="rename-{{index}}-error"{{/renameError}}></div>
        <button type="submit" class="secondary" id="rename-{{index}}-button">{{t.place_rename_button}}</button></form>
        <form method="post" action="/places/remove"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="name" value="{{name}}">
        <button type="submit" class="warning" id="remove-{{index}}" aria-label="{{removeLabel}}">{{t.place_remove_button}}</button></form>
        </li>{{/places}}</ul>
        {{/hasPlaces}}
        {{^hasPlaces}}<p>{{t.places_none}}</p>{{/hasPlaces}}
        <h3>{{t.places_add_heading}}</h3>
        {{#placeForm}}<form method="post" action="/places/add" novalidate>
        <input type="hidden" name="csrf" value="{{csrf}}">
        <div class="field">
        <label for="place-name">{{t.place_name_label}}</label>
        <p class="hint" id="place-name-hint">{{t.place_name_hint}}</p>
        {{#nameError}}<p class="field-error" id="place-name-error"><span class="visually-hidden">{{t.error_prefix}}</span> {{.}}</p>{{/nameError}}
        <input id="place-name" name="name" type="text" value="{{name}}" autocomplete="off"
         aria-describedby="place-name-hint{{#nameError}} place-name-error{{/nameError}}"{{#nameError}} aria-invalid="true"{{/nameError}}>
        </div>
        <div class="field">
        <label for="place-address">{{t.place_address_label}}</label>
        {{#addressError}}<p class="field-error" id="place-address-error"><span class="visually-hidden">{{t.error_prefix}}</span> {{.}}</p>{{/addressError}}
        <input id="place-address" name="address" type="text" value="{{address}}" autocomplete="street-address"{{#addressError}} aria-invalid="true" aria-describedby="place-address-error"{{/addressError}}>
        </div>
        <button type="submit" class="secondary" id="save-place">{{t.place_save}}</button>
        </form>{{/placeForm}}
        </section>
        </main>
        </body>
        </html>
        """

    /// The ride's state; also served alone (`/ride/status`) for the page's script to swap in.
    static let status = """
        {{#current}}<div id="ride-state" data-state="{{state}}" data-code="{{code}}"{{#rideID}} data-ride-id="{{.}}"{{/rideID}}>
        <p class="sentence" id="ride-sentence">{{sentence}}</p>
        <dl>
        <dt>{{t.label_code}}</dt><dd class="code">{{code}}</dd>
        <dt>{{t.label_state}}</dt><dd>{{stateName}}</dd>
        {{#driver}}<dt>{{t.label_driver}}</dt><dd>{{.}}</dd>{{/driver}}
        {{#vehicle}}<dt>{{t.label_vehicle}}</dt><dd>{{.}}</dd>{{/vehicle}}
        {{#eta}}<dt>{{t.label_estimate}}</dt><dd>{{.}}</dd>{{/eta}}
        <dt>{{t.pickup_label}}</dt><dd>{{pickup}}</dd>
        <dt>{{t.dropoff_label}}</dt><dd>{{dropoff}}</dd>
        </dl>
        {{#guideHint}}<p class="guide-hint" id="guide-hint">{{.}}</p>{{/guideHint}}
        {{#kerb}}<section id="kerb" aria-labelledby="kerb-heading" data-wait="{{answerWait}}" data-asking="{{asking}}"
         data-asked-already="{{askedAlready}}" data-received="{{received}}" data-coming="{{coming}}" data-staying="{{staying}}"
         data-no-answer="{{noAnswer}}" data-received-no-answer="{{receivedNoAnswer}}" data-sound-asked="{{soundAsked}}"
         data-sound-asked-already="{{soundAskedAlready}}" data-horn="{{horn}}" data-voice="{{voice}}" data-device="{{device}}"
         data-no-sound="{{noSound}}" data-message-sent="{{messageSent}}" data-failed="{{failed}}">
        <h2 id="kerb-heading">{{heading}}</h2>
        <p id="kerb-live" class="notice" role="status"></p>
        <p class="kerb-actions"><button type="button" id="ask-come">{{comeLabel}}</button>
        <button type="button" class="secondary" id="ask-sound">{{soundLabel}}</button></p>
        <details id="ride-word"><summary>{{wordLabel}}</summary><p>{{wordSentence}}</p></details>
        <form id="message-form" class="field"><label for="message-preset">{{messageLabel}}</label>
        <select id="message-preset" name="preset">{{#presets}}<option value="{{value}}">{{sentence}}</option>{{/presets}}</select>
        <button type="submit" class="secondary" id="send-message">{{messageSend}}</button></form>
        </section>{{/kerb}}
        </div>{{/current}}{{^current}}<div id="ride-state" data-state="none"><p class="sentence" id="ride-sentence">{{#cancelled}}{{.}}{{/cancelled}}{{^cancelled}}{{#completed}}{{.}}{{/completed}}{{^completed}}{{t.no_open_ride}}{{/completed}}{{/cancelled}}</p>{{#cancelled}}<p><a href="/" id="ask-again">{{t.title_request}}</a></p>{{/cancelled}}</div>{{/current}}
        """

    /// The confirmation step before cancelling: a page of its own, so no single key press cancels.
    static let cancel = """
        <!doctype html>
        <html lang="{{lang}}">
        <head>
        {{> p-head}}
        <title>{{t.cancel_title}} — RideBeacon</title>
        </head>
        <body>
        <main>
        <h1>{{t.cancel_heading}}</h1>
        <p>{{sentence}}</p>
        <form method="post" action="/ride/cancel">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="confirm" value="yes">
        <button type="submit" class="warning" id="confirm-cancel">{{t.cancel_confirm}}</button>
        </form>
        <p><a class="button secondary" href="/" id="keep-ride">{{t.cancel_keep}}</a></p>
        </main>
        </body>
        </html>
        """
}
