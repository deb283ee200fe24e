import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 37 (point 12): a ride carries its passenger's language (`RideParty.language`), so both
/// devices say the ride word in her words; read from her account on both stores, by the ride
/// alone and in a listing, and following her account when she changes it.
@Suite("Store: the ride carries the passenger's language")
struct RidePartyLanguageStoreTests {
    @Test(arguments: StoreKind.available)
    func readWithTheRide(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let request = try await store.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"),
                                                        passengerID: cast.passenger.id, rule: .oneRideAtATime, idempotency: nil)
        let ride = try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, rule: .oneRideAtATime,
                                          idempotency: nil)
        #expect(try await store.rideDetail(id: ride.id)?.passenger.language == nil, "her account chose none")
        try await store.setAccountLanguage(accountID: cast.passenger.id, language: "es")
        // The driver's own language is not the ride word's: his account chooses French.
        try await store.setAccountLanguage(accountID: cast.driver.id, language: "fr")
        let detail = try #require(try await store.rideDetail(id: ride.id))
        #expect(detail.passenger.language == "es", "hers, not his")
        #expect(detail.driver.language == nil, "only the passenger's language travels with the ride")
        let listed = try await store.rideDetails(RideFilter(scope: .participant(cast.driver.id)))
        #expect(listed.map(\.passenger.language) == ["es"], "a listing reads it too")
        try await store.setAccountLanguage(accountID: cast.passenger.id, language: "fr")
        #expect(try await store.rideDetail(id: ride.id)?.passenger.language == "fr", "her account's language now")
    }
}
