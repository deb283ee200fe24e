import APIBodies
import Foundation
import Hummingbird
import Phrasebook
import RideStore

/// The passenger page's saved places (issue 25): added, renamed and removed on the page, as
/// the CLI's `passenger places` does; a name already saved is refused (rename or remove it
/// first), never silently replaced.
extension PassengerPageRoutes {
    func addPlaceRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/places/add", use: passengerAddPlace)
        routes.post("/places/rename", use: passengerRenamePlace)
        routes.post("/places/remove", use: passengerRemovePlace)
    }

    struct PlaceAddForm: Decodable { var csrf: String?; var name: String?; var address: String? }
    struct PlaceRenameForm: Decodable { var csrf: String?; var from: String?; var to: String? }
    struct PlaceRemoveForm: Decodable { var csrf: String?; var name: String? }

    /// A place name's problem in the page's language, or nil when the API would take it.
    static func nameProblem(_ name: String, field: String, places: [SavedPlaceRecord], except: String? = nil, book: Phrasebook) -> String? {
        if name.isEmpty { return book(.pagePlaceNameEmpty) }
        if (try? FieldRules.text(name, field: "name", maxLength: SavedPlaceBody.maxNameLength)) == nil || name.contains("/") {
            return book(.pagePlaceTooLong, ["field": .text(field), "count": .count(SavedPlaceBody.maxNameLength)])
        }
        if let taken = places.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame && $0.name != except }) {
            return book(.pagePlaceExists, ["place": .text(taken.name)])
        }
        return nil
    }

    @Sendable func passengerAddPlace(_ request: Request, context: Context) async throws -> Response {
        let (passenger, token) = try await passengerSessionOrFail(request)
        let form = try await request.decodeForm(PlaceAddForm.self)
        guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
        let book = await book(for: request, passenger: passenger)
        let places = try await store.savedPlaces(accountID: passenger.id)
        var typed = PassengerPage.PlaceForm(name: form.name ?? "", address: form.address ?? "")
        let name = typed.name.trimmingCharacters(in: .whitespacesAndNewlines)
        let address = typed.address.trimmingCharacters(in: .whitespacesAndNewlines)
        var errors: [PassengerPage.FieldError] = []
        if let problem = Self.nameProblem(name, field: book(.pagePlaceNameLabel), places: places, book: book) {
            typed.nameError = [problem]
            errors.append(.init(fieldID: "place-name", message: problem))
        }
        if address.isEmpty {
            typed.addressError = [book(.pagePlaceAddressEmpty)]
        } else if (try? FieldRules.text(address, field: "address", maxLength: BodyLimits.maxTextLength)) == nil {
            typed.addressError = [book(.pagePlaceTooLong, ["field": .text(book(.pagePlaceAddressLabel)), "count": .count(BodyLimits.maxTextLength)])]
        }
        errors += typed.addressError.map { .init(fieldID: "place-address", message: $0) }
        if !errors.isEmpty {
            return try await placesPage(passenger, token: token, book: book, placeForm: typed, errors: errors)
        }
        _ = try await store.savePlace(SavedPlaceRecord(accountID: passenger.id, name: name, address: address, createdAt: now()))
        return try await placesPage(passenger, token: token, book: book, notice: book(.pagePlaceSaved, ["place": .text(name)]))
    }

    @Sendable func passengerRenamePlace(_ request: Request, context: Context) async throws -> Response {
        let (passenger, token) = try await passengerSessionOrFail(request)
        let form = try await request.decodeForm(PlaceRenameForm.self)
        guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
        let book = await book(for: request, passenger: passenger)
        let places = try await store.savedPlaces(accountID: passenger.id)
        let from = form.from ?? ""
        guard let place = places.first(where: { $0.name == from }) else {
            return try await placesPage(passenger, token: token, book: book, notice: book(.pagePlaceNotFound, ["place": .text(from)]))
        }
        let to = (form.to ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = Self.nameProblem(to, field: place.name, places: places, except: place.name, book: book) {
            let index = places.firstIndex { $0.name == place.name } ?? 0
            return try await placesPage(passenger, token: token, book: book, errors: [.init(fieldID: "rename-\(index)", message: problem)],
                                        renameErrors: [place.name: problem])
        }
        // Saved under the new name first: a failure in between leaves both, never neither.
        _ = try await store.savePlace(SavedPlaceRecord(accountID: passenger.id, name: to, address: place.address, createdAt: now()))
        if to != place.name { _ = try await store.removePlace(accountID: passenger.id, name: place.name) }
        return try await placesPage(passenger, token: token, book: book,
                                    notice: book(.pagePlaceRenamed, ["place": .text(place.name), "new": .text(to)]))
    }

    @Sendable func passengerRemovePlace(_ request: Request, context: Context) async throws -> Response {
        let (passenger, token) = try await passengerSessionOrFail(request)
        let form = try await request.decodeForm(PlaceRemoveForm.self)
        guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
        let book = await book(for: request, passenger: passenger)
        let name = form.name ?? ""
        let removed = try await store.removePlace(accountID: passenger.id, name: name)
        return try await placesPage(passenger, token: token, book: book,
                                    notice: book(removed ? .pagePlaceRemoved : .pagePlaceNotFound, ["place": .text(name)]))
    }

    /// The page's language for a signed-in passenger: the one picked on this browser, else the
    /// one kept with her account (picked on another browser), else the browser's own.
    func book(for request: Request, passenger: Account) async -> Phrasebook {
        if let picked = request.cookies[PassengerLanguage.cookieName].flatMap({ Language(rawValue: $0.value) }) { return Phrasebook(picked) }
        if let kept = try? await store.accountLanguage(accountID: passenger.id), let language = Language(rawValue: kept) {
            return Phrasebook(language)
        }
        return PassengerLanguage.book(for: request)
    }

    /// The home page after a places form: its notice, or its errors (400) with what was typed.
    func placesPage(_ passenger: Account, token: APITokenSecret, book: Phrasebook, notice: String? = nil,
                    placeForm: PassengerPage.PlaceForm = PassengerPage.PlaceForm(), errors: [PassengerPage.FieldError] = [],
                    renameErrors: [String: String] = [:]) async throws -> Response {
        let page = PassengerPage(passenger: passenger, csrf: DispatchSession.csrfToken(for: token), lastEventID: try await store.lastEventID(),
                                 places: try await store.savedPlaces(accountID: passenger.id),
                                 current: try await currentRide(of: passenger)?.view(book), notice: notice, book: book,
                                 placeForm: placeForm, placeErrors: errors, renameErrors: renameErrors)
        return passengerRender("p-home", page, status: errors.isEmpty ? .ok : .badRequest)
    }
}
