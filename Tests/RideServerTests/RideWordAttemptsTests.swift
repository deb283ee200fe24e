import BeaconCore
import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 36, finding 6: the ride word could be tried without limit (4 031 wrong pairs in 8 s,
/// then the right one confirmed). Each ride now takes `RideWordPolicy.attemptsPerRide` words,
/// counted in the store (so on every server, and exactly under a concurrent burst); after that
/// the word no longer confirms the ride and the answer says what to do instead.
@Suite("Ride word attempts per ride", .timeLimit(.minutes(2)))
struct RideWordAttemptsTests {
    static func wrongWords(for key: Data, count: Int) -> [String] {
        let right = RideWord.normalized(RideWord.phrase(rideKey: key))
        var words: [String] = []
        for first in RideWord.words { for second in RideWord.words where first != second {
            let phrase = "\(first) \(second)"
            if phrase != right && words.count < count { words.append(phrase) }
        } }
        return words
    }

    @Test(arguments: StoreKind.available)
    func aBurstOfWrongWordsGetsExactlyTheAttemptsThenTheRightWordIsRefusedToo(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let key = Data((0..<32).map { UInt8(($0 * 13 + 1) % 256) })
        let ride = try await world.arrivedRide(key: key)
        let path = "/v1/rides/\(ride.id)/ride-word"
        try await world.app().test(.router) { client in
            let before = try await world.store.events(rideID: ride.id, after: 0)
            let codes = try await withThrowingTaskGroup(of: String?.self) { group in
                for word in Self.wrongWords(for: key, count: 40) {
                    group.addTask { try await client.call(.post, path, as: world.passenger, json: #"{"word":"\#(word)"}"#).errorCode }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes.filter { $0 == "wrong_ride_word" }.count == RideWordPolicy.attemptsPerRide, "\(codes)")
            #expect(codes.filter { $0 == "ride_word_locked" }.count == 40 - RideWordPolicy.attemptsPerRide, "\(codes)")
            // The right word now is refused as well, saying what to do instead; nothing changed.
            let right = try await client.call(.post, path, as: world.passenger, json: #"{"word":"\#(RideWord.phrase(rideKey: key))"}"#)
            #expect(right.status == .conflict && right.errorCode == "ride_word_locked", "\(right.text)")
            #expect(right.errorMessage.contains("touch") && right.errorMessage.contains("ride service"))
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived)
            #expect(try await world.store.events(rideID: ride.id, after: 0) == before)
        }
        await world.close()
    }

    /// A passenger who mishears the driver twice still confirms with the right word.
    @Test(arguments: StoreKind.available)
    func twoMisheardWordsThenTheRightOneConfirms(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let key = Data((0..<32).map { UInt8(($0 * 5 + 2) % 256) })
        let ride = try await world.arrivedRide(key: key)
        let path = "/v1/rides/\(ride.id)/ride-word"
        try await world.app().test(.router) { client in
            for word in Self.wrongWords(for: key, count: 2) {
                #expect(try await client.call(.post, path, as: world.passenger, json: #"{"word":"\#(word)"}"#).errorCode == "wrong_ride_word")
            }
            let right = try await client.call(.post, path, as: world.passenger, json: #"{"word":"\#(RideWord.phrase(rideKey: key))"}"#)
            #expect(right.status == .ok && right.string("state") == "confirmed", "\(right.text)")
        }
        await world.close()
    }
}
