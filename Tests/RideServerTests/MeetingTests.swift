import BeaconCore
import Foundation
import HummingbirdTesting
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// The meeting at the kerb over HTTP on both stores (issue 22): the driver's answer to a locator
/// request (only the ride's driver, only after a request, only while arrived), the moves, the
/// guide reporting in, and the ride word (only the ride's passenger, only the right word, never
/// after a touch confirmed the ride). Every refusal leaves the history alone.
@Suite("Meeting at the kerb", .timeLimit(.minutes(2)))
struct MeetingTests {
    static let worlds = PerStoreKind { try await World.make($0) }
    static func world(_ kind: StoreKind) async throws -> World { try await worlds.value(for: kind) }

    static func history(_ world: World, _ ride: RideRecord) async throws -> [RideEvent] {
        try await world.store.events(rideID: ride.id, after: 0)
    }

    @Test(arguments: StoreKind.available)
    func theDriversAnswerFollowsTheRequestAndNamesTheSound(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let ride = try await world.arrivedRide()
        try await world.app().test(.router) { client in
            let answer = "/v1/rides/\(ride.id)/locator/answer"
            // Nothing asked yet: nothing to answer.
            let early = try await client.call(.post, answer, as: world.driver, json: #"{"sound":"horn"}"#)
            #expect(early.status == .conflict && early.errorCode == "nothing_to_answer", "\(early.text)")
            #expect(try await client.call(.post, "/v1/rides/\(ride.id)/locator", as: world.passenger).status == .accepted)
            let before = try await Self.history(world, ride).count
            // Who may answer: the ride's own driver only; another driver's answer is a 404 (no oracle).
            #expect(try await client.call(.post, answer, as: world.passenger, json: #"{"sound":"horn"}"#).status == .forbidden)
            #expect(try await client.call(.post, answer, as: world.otherDriver, json: #"{"sound":"horn"}"#).status == .notFound)
            #expect(try await client.call(.post, answer, as: nil, json: #"{"sound":"horn"}"#).status == .unauthorized)
            let siren = try await client.call(.post, answer, as: world.driver, json: #"{"sound":"siren"}"#)
            #expect(siren.status == .badRequest && siren.errorField == "sound" && siren.errorMessage.contains("horn, voice, device, none"))
            #expect(try await Self.history(world, ride).count == before, "refusals change nothing")

            let made = try await client.call(.post, answer, as: world.driver, json: #"{"sound":"horn"}"#)
            #expect(made.status == .created, "\(made.text)")
            #expect(made.string("kind") == "locator_answered" && made.string("detail") == "horn" && made.string("rideId") == ride.id)
            let event = try #require(try await Self.history(world, ride).last)
            #expect(event.kind == .locatorAnswered && event.locatorAnswer == .horn && event.actorID == world.driver.id)
            #expect(event.state == .arrived && event.name == "locator_answered")
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived, "the ride's state is untouched")

            // One answer per request (issue 36): the request is answered.
            let again = try await client.call(.post, answer, as: world.driver, json: #"{"sound":"none"}"#)
            #expect(again.status == .conflict && again.errorCode == "nothing_to_answer", "\(again.text)")
            #expect(try await Self.history(world, ride).last?.locatorAnswer == .horn)
        }
    }

    @Test(arguments: StoreKind.available)
    func meetingMovesAndGuideReports(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let ride = try await world.arrivedRide()
        let accepted = try await world.acceptedRide(key: Data(repeating: 9, count: 32))
        try await world.app().test(.router) { client in
            let meeting = "/v1/rides/\(ride.id)/meeting"
            let coming = try await client.call(.post, meeting, as: world.driver, json: #"{"move":"coming"}"#)
            #expect(coming.status == .created && coming.string("kind") == "driver_coming", "\(coming.text)")
            // The passenger's guide may say the car is across, never that the driver is coming.
            #expect(try await client.call(.post, meeting, as: world.passenger, json: #"{"move":"coming"}"#).status == .forbidden)
            let across = try await client.call(.post, meeting, as: world.passenger, json: #"{"move":"across"}"#)
            #expect(across.status == .created && across.string("kind") == "car_across")
            #expect(try await client.call(.post, meeting, as: world.otherPassenger, json: #"{"move":"across"}"#).status == .notFound)
            let bad = try await client.call(.post, meeting, as: world.driver, json: #"{"move":"swim"}"#)
            #expect(bad.status == .badRequest && bad.errorField == "move")
            let notYet = try await client.call(.post, "/v1/rides/\(accepted.id)/meeting", as: world.driver, json: #"{"move":"coming"}"#)
            #expect(notYet.status == .conflict && notYet.errorCode == "wrong_state" && notYet.errorState == "accepted")

            let guide = "/v1/rides/\(ride.id)/guide"
            #expect(try await client.call(.post, guide, as: world.passenger, json: #"{"report":"started"}"#).status == .created)
            #expect(try await client.call(.post, guide, as: world.driver, json: #"{"report":"started"}"#).status == .forbidden)
            #expect(try await client.call(.post, "/v1/rides/\(accepted.id)/guide", as: world.passenger, json: #"{"report":"started"}"#)
                .status == .conflict, "the guide starts on arrival")
            #expect(try await client.call(.post, guide, as: world.passenger, json: #"{"report":"stopped"}"#).status == .created)
            let kinds = try await Self.history(world, ride).map(\.kind).filter { !$0.isStateChange }
            #expect(kinds == [.driverComing, .carAcross, .guideStarted, .guideStopped])
        }
    }

    @Test(arguments: StoreKind.available)
    func theRideWordConfirmsOnlyWithTheRightWordForThatRidesPassenger(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let key = Data((0..<32).map { UInt8(($0 * 7 + 3) % 256) })
        let ride = try await world.arrivedRide(key: key)
        let word = RideWord.phrase(rideKey: key)
        let wrong = RideWord.words.filter { !word.contains($0) }.prefix(2).joined(separator: " ")
        try await world.app().test(.router) { client in
            let path = "/v1/rides/\(ride.id)/ride-word"
            let before = try await Self.history(world, ride).count
            let wrongWord = try await client.call(.post, path, as: world.passenger, json: #"{"word":"\#(wrong)"}"#)
            #expect(wrongWord.status == .unprocessableContent && wrongWord.errorCode == "wrong_ride_word" && wrongWord.errorField == "word")
            // Only the ride's passenger: the driver may not, another passenger's is a 404.
            #expect(try await client.call(.post, path, as: world.driver, json: #"{"word":"\#(word)"}"#).status == .forbidden)
            #expect(try await client.call(.post, path, as: world.otherPassenger, json: #"{"word":"\#(word)"}"#).status == .notFound)
            #expect(try await client.call(.post, path, as: world.dispatcher, json: #"{"word":"\#(word)"}"#).status == .forbidden)
            let empty = try await client.call(.post, path, as: world.passenger, json: #"{"word":""}"#)
            #expect(empty.status == .badRequest && empty.errorField == "word")
            #expect(try await Self.history(world, ride).count == before, "refusals change nothing")
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived)

            // As heard: capitals and a comma do not matter.
            let heard = word.split(separator: " ").map { $0.capitalized }.joined(separator: ", ")
            let confirmed = try await client.call(.post, path, as: world.passenger, json: #"{"word":"\#(heard)"}"#)
            #expect(confirmed.status == .ok && confirmed.string("state") == "confirmed", "\(confirmed.text)")
            let event = try #require(try await Self.history(world, ride).last)
            #expect(event.state == .confirmed && event.detail == RideWordPolicy.confirmationDetail && event.actorID == world.passenger.id)
            #expect(RideWordPolicy.confirmationDetail.contains("weaker than touch"))
            // The dispatcher board says which proof confirmed it.
            let board = try await client.form(.get, "/dispatch/board", cookie: world.dispatcher.token).text
            #expect(board.contains("confirmed <span class=\"proof\">(by ride word, weaker than touch)</span>"), "\(board)")
            // Once confirmed, never again.
            let again = try await client.call(.post, path, as: world.passenger, json: #"{"word":"\#(word)"}"#)
            #expect(again.status == .conflict && again.errorCode == "wrong_state" && again.errorState == "confirmed")
        }
    }

    @Test(arguments: StoreKind.available)
    func theRideWordIsRefusedAfterATouchConfirmedTheRide(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock(Date())
        let key = Data((0..<32).map { UInt8(($0 * 11 + 5) % 256) })
        let ride = try await world.arrivedRide(key: key)
        try await world.app(configure: { $0.now = clock.reading; $0.touch.policy = .passenger }).test(.router) { client in
            let proof = try ProofBody(ride: key, by: .passenger, at: clock.now)
            let touched = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: world.passenger, json: proof.json)
            #expect(touched.status == .ok && (touched.json["outcome"] as? String) == "confirmed", "\(touched.text)")
            let before = try await Self.history(world, ride)
            let word = try await client.call(.post, "/v1/rides/\(ride.id)/ride-word", as: world.passenger,
                                             json: #"{"word":"\#(RideWord.phrase(rideKey: key))"}"#)
            #expect(word.status == .conflict && word.errorCode == "wrong_state" && word.errorState == "confirmed")
            let after = try await Self.history(world, ride)
            #expect(after == before && after.last?.detail?.contains("touch proof") == true, "the touch's confirmation stands alone")
        }
    }
}
