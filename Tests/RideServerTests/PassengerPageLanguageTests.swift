import Foundation
import HTTPTypes
import HummingbirdTesting
import Phrasebook
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 26: the passenger page in the browser's language (Accept-Language) or the one picked
/// on the page, its sentences from the phrasebook. Issue 25: saved places added, renamed and
/// removed on the page, a name already saved refused with the error summary focused.
@Suite("Passenger page languages and places", .timeLimit(.minutes(2)))
struct PassengerPageLanguageTests {
    @Test func theBrowsersLanguageThenThePickedOneThroughTheRide() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.router) { client in
            let session = "rb_passenger=\(world.passenger.token)"
            // The browser asks for Spanish first.
            let spanish = try await client.form(.get, "/", cookie: session, headers: ["Accept-Language": "de-DE, es-ES;q=0.9, en;q=0.5"])
            #expect(spanish.text.contains(#"<html lang="es">"#) && spanish.text.contains("<h1>Pedir un viaje</h1>"))
            #expect(spanish.text.contains("El conductor dirá tu nombre en voz alta, Ana."))
            #expect(spanish.text.contains(#"<option value="es" lang="es" selected>Español</option>"#))
            // No header, no choice: English, as before.
            let english = try await client.form(.get, "/", cookie: session)
            #expect(english.text.contains(#"<html lang="en">"#) && english.text.contains("<h1>Request a ride</h1>"))

            // The picker: French, remembered in a cookie, over the browser's Spanish.
            let pageCSRF = String(try #require(english.text.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)
            let unknown = try await client.form(.post, "/language", "csrf=\(pageCSRF)&language=de", cookie: session)
            #expect(unknown.status == .badRequest && unknown.headers[.setCookie] == nil)
            let picked = try await client.form(.post, "/language", "csrf=\(pageCSRF)&language=fr", cookie: session)
            #expect(picked.status == .seeOther && picked.headers[.location] == "/")
            let languageCookie = String(try #require(picked.headers[.setCookie]).prefix { $0 != ";" })
            #expect(languageCookie == "rb_lang=fr")
            let cookies = "\(session); \(languageCookie)"
            let french = try await client.form(.get, "/", cookie: cookies, headers: ["Accept-Language": "es"])
            #expect(french.text.contains(#"<html lang="fr">"#) && french.text.contains("<h1>Demander une course</h1>"))
            let csrf = String(try #require(french.text.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)
            // Kept with her account: another browser (no language cookie, asking for Spanish) gets French too.
            #expect(try await world.store.accountLanguage(accountID: world.passenger.id) == "fr")
            let otherBrowser = try await client.form(.get, "/", cookie: session, headers: ["Accept-Language": "es"])
            #expect(otherBrowser.text.contains(#"<html lang="fr">"#), "the account's language before the browser's")

            // A form error in French, its summary focused first.
            let empty = try await client.form(.post, "/ride/request", "csrf=\(csrf)&pickup=&dropoff=", cookie: cookies)
            #expect(empty.status == .badRequest && empty.text.contains("<title>Erreur : Demander une course — RideBeacon</title>"))
            #expect(empty.text.contains(##"<a href="#pickup">Indiquez où le chauffeur doit vous prendre</a>"##))
            #expect(empty.text.contains(#"id="error-summary" autofocus>"#))
            #expect(try await world.store.rideRequests(passengerID: world.passenger.id).isEmpty)

            _ = try await client.form(.post, "/ride/request", "csrf=\(csrf)&pickup=Gare+du+Nord&dropoff=Hôpital", cookie: cookies)
            let request = try #require(try await world.store.rideRequests(passengerID: world.passenger.id).first)
            let code = try #require(request.shortCode)
            let waiting = try await client.form(.get, "/ride/status", cookie: cookies).text
            #expect(waiting.contains("Votre course \(code) attend un chauffeur. Prise en charge : Gare du Nord."), "\(waiting)")
            #expect(waiting.contains("<dt>Code de la course</dt>") && waiting.contains("<dd>demandée</dd>"))

            let ride = try await world.store.accept(requestID: request.id, driverID: world.driver.id, rideKey: Data(repeating: 1, count: 32), idempotency: nil)
            _ = try await world.store.setETA(rideID: ride.id, minutes: 1, by: world.driver.id, idempotency: nil)
            let accepted = try await client.form(.get, "/ride/status", cookie: cookies).text
            #expect(accepted.contains("a accepté votre course \(code). Arrivée prévue au point de prise en charge dans 1 minute."), "\(accepted)")
            // The same ride in Spanish and English, from the browser's language alone (no language kept).
            try await world.store.setAccountLanguage(accountID: world.passenger.id, language: nil)
            let spanishStatus = try await client.form(.get, "/ride/status", cookie: session, headers: ["Accept-Language": "es"]).text
            #expect(spanishStatus.contains("ha aceptado tu viaje \(code). Tu conductor prevé llegar a la recogida en 1 minuto."), "\(spanishStatus)")
            let englishStatus = try await client.form(.get, "/ride/status", cookie: session).text
            #expect(englishStatus.contains("accepted your ride \(code). They expect to reach the pickup in 1 minute."), "\(englishStatus)")

            _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
            let arrived = try await client.form(.get, "/ride/status", cookie: cookies).text
            // One true sentence: nothing has asked Ben anything yet.
            #expect(arrived.contains("Votre téléphone ne peut pas vous guider ici : restez au point de prise en charge."), "\(arrived)")
            let question = try await client.form(.get, "/ride/cancel", cookie: cookies).text
            #expect(question.contains("<h1>Annuler la course \(code) ?</h1>") && question.contains("Oui, annuler la course \(code)"))
        }
    }

    @Test(arguments: StoreKind.available)
    func savedPlacesAreAddedRenamedAndRemovedOnThePage(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let cookie = "rb_passenger=\(world.passenger.token)"
            let home = try await client.form(.get, "/", cookie: cookie)
            #expect(home.text.contains("No saved places yet.") && home.text.contains(#"<form method="post" action="/places/add" novalidate>"#))
            let csrf = String(try #require(home.text.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)
            func places() async throws -> [String] {
                try await world.store.savedPlaces(accountID: world.passenger.id).map { "\($0.name): \($0.address)" }.sorted()
            }

            let added = try await client.form(.post, "/places/add", "csrf=\(csrf)&name=home&address=Main+St+1", cookie: cookie)
            #expect(added.status == .ok && added.text.contains("Saved home."))
            #expect(added.text.contains(#"<label for="rename-0">New name for home</label>"#) && added.text.contains(#"aria-label="Remove home""#))
            #expect(try await places() == ["home: Main St 1"])

            // A name already saved (in any case) is refused, what was typed kept, nothing changed.
            let again = try await client.form(.post, "/places/add", "csrf=\(csrf)&name=Home&address=Elm+St+9", cookie: cookie)
            #expect(again.status == .badRequest && again.text.contains("<title>Error: "))
            #expect(again.text.contains(##"<a href="#place-name">You already have a place called home: rename or remove it first</a>"##))
            #expect(again.text.contains(#"id="error-summary" autofocus>"#) && again.text.contains(#"value="Elm St 9""#))
            let missing = try await client.form(.post, "/places/add", "csrf=\(csrf)&name=&address=", cookie: cookie)
            #expect(missing.status == .badRequest && missing.text.contains("Enter a name for the place") && missing.text.contains(##"<a href="#place-address">Enter the place"##))
            let forged = try await client.form(.post, "/places/add", "csrf=forged&name=work&address=X", cookie: cookie)
            #expect(forged.status == .forbidden)
            #expect(try await places() == ["home: Main St 1"])

            _ = try await client.form(.post, "/places/add", "csrf=\(csrf)&name=work&address=Elm+St+9", cookie: cookie)
            let clash = try await client.form(.post, "/places/rename", "csrf=\(csrf)&from=home&to=WORK", cookie: cookie)
            #expect(clash.status == .badRequest && clash.text.contains(##"<a href="#rename-0">You already have a place called work"##))
            #expect(clash.text.contains(#"<input id="rename-0" name="to" type="text" autocomplete="off" aria-invalid="true""#))
            let renamed = try await client.form(.post, "/places/rename", "csrf=\(csrf)&from=home&to=flat", cookie: cookie)
            #expect(renamed.status == .ok && renamed.text.contains("Renamed home to flat."))
            #expect(try await places() == ["flat: Main St 1", "work: Elm St 9"])

            let removed = try await client.form(.post, "/places/remove", "csrf=\(csrf)&name=work", cookie: cookie)
            #expect(removed.status == .ok && removed.text.contains("Removed work."))
            #expect(try await places() == ["flat: Main St 1"])
            // In Spanish too.
            let gone = try await client.form(.post, "/places/remove", "csrf=\(csrf)&name=work", cookie: cookie, headers: ["Accept-Language": "es"])
            #expect(gone.text.contains("No tienes ningún lugar llamado work"))
        }
    }
}
