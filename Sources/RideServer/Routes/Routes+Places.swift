import Foundation
import Hummingbird
import RideStore

/// `/v1/places`: a passenger's saved places ("home", "station"), kept with the account so a
/// new device has them; `passenger request --from home` uses them.
struct PlaceRoutes<Context: RideRequestContext>: Sendable {
    let store: any PlaceStore
    let now: @Sendable () -> Date

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/places", use: listPlaces)
        routes.post("/places", use: savePlace)
        routes.post("/places/{name}/remove", use: removePlace)
    }

    @Sendable func listPlaces(_ request: Request, context: Context) async throws -> SavedPlaceList {
        let passenger = try context.caller(in: [.passenger], to: "keep saved places")
        return SavedPlaceList(places: try await store.savedPlaces(accountID: passenger.id).map { SavedPlace(name: $0.name, address: $0.address) })
    }

    /// Saving a name again changes its address.
    @Sendable func savePlace(_ request: Request, context: Context) async throws -> EditedResponse<SavedPlace> {
        let passenger = try context.caller(in: [.passenger], to: "keep saved places")
        let body = try await request.decodeStrict(SavedPlaceBody.self, context: context)
        let saved = try await store.savePlace(SavedPlaceRecord(accountID: passenger.id, name: body.name, address: body.address, createdAt: now()))
        return EditedResponse(status: .created, response: SavedPlace(name: saved.name, address: saved.address))
    }

    @Sendable func removePlace(_ request: Request, context: Context) async throws -> SavedPlace {
        let passenger = try context.caller(in: [.passenger], to: "keep saved places")
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let name = try context.parameters.require("name")
        guard let place = try await store.savedPlaces(accountID: passenger.id).first(where: { $0.name == name }),
              try await store.removePlace(accountID: passenger.id, name: name) else {
            throw APIError.notFound("saved place \(name)")
        }
        return SavedPlace(name: place.name, address: place.address)
    }
}
