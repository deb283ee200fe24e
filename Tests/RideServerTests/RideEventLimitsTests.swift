import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 36, finding 4: a ride's passenger or driver could post `guide`, `meeting` and locator
/// answers without limit (also after the confirmation), and every reader of the history paid.
/// Now a repeat that changes nothing is refused, a locator answer needs an unanswered request,
/// each kind has a cap per ride (all in the store's transaction, so under a concurrent burst
/// too), and an account has a budget a minute. Counted answers, on both stores.
@Suite("Ride event limits", .timeLimit(.minutes(3)))
struct RideEventLimitsTests {
    static func post(_ client: some TestClientProtocol, _ path: String, as member: Member, _ json: String) async throws -> (Int, String?) {
        let answer = try await client.call(.post, path, as: member, json: json)
        return (Int(answer.status.code), answer.errorCode)
    }

    @Test(arguments: StoreKind.available)
    func repeatsThatChangeNothingAndAnswersWithoutARequestAreRefused(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.arrivedRide()
        try await world.app().test(.router) { client in
            let guide = "/v1/rides/\(ride.id)/guide", meeting = "/v1/rides/\(ride.id)/meeting", answer = "/v1/rides/\(ride.id)/locator/answer"
            #expect(try await Self.post(client, guide, as: world.passenger, #"{"report":"started"}"#).0 == 201)
            #expect(try await Self.post(client, guide, as: world.passenger, #"{"report":"started"}"#) == (409, "no_change"))
            #expect(try await Self.post(client, guide, as: world.passenger, #"{"report":"stopped"}"#).0 == 201)
            #expect(try await Self.post(client, guide, as: world.passenger, #"{"report":"stopped"}"#) == (409, "no_change"))
            #expect(try await Self.post(client, meeting, as: world.driver, #"{"move":"coming"}"#).0 == 201)
            #expect(try await Self.post(client, meeting, as: world.driver, #"{"move":"coming"}"#) == (409, "no_change"))
            #expect(try await Self.post(client, meeting, as: world.passenger, #"{"move":"across"}"#).0 == 201)
            #expect(try await Self.post(client, meeting, as: world.driver, #"{"move":"across"}"#) == (409, "no_change"))
            // One answer per locator request.
            #expect(try await client.call(.post, "/v1/rides/\(ride.id)/locator", as: world.passenger).status == .accepted)
            #expect(try await Self.post(client, answer, as: world.driver, #"{"sound":"horn"}"#).0 == 201)
            #expect(try await Self.post(client, answer, as: world.driver, #"{"sound":"none"}"#) == (409, "nothing_to_answer"))
            // After the confirmation: the guide stopping again changes nothing either.
            try await world.confirmAsOperator(rideID: ride.id)
            let before = try await world.store.events(rideID: ride.id, after: 0)
            #expect(try await Self.post(client, guide, as: world.passenger, #"{"report":"stopped"}"#) == (409, "no_change"))
            #expect(try await world.store.events(rideID: ride.id, after: 0) == before, "refusals write nothing")
        }
        await world.close()
    }

    /// A concurrent burst of the same move, and of answers to one request: one event each.
    @Test(arguments: StoreKind.available)
    func burstsOfRepeatsWriteOneEvent(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.arrivedRide()
        try await world.app().test(.router) { client in
            #expect(try await client.call(.post, "/v1/rides/\(ride.id)/locator", as: world.passenger).status == .accepted)
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<18 {
                    let (path, body) = index % 2 == 0 ? ("meeting", #"{"move":"across"}"#) : ("locator/answer", #"{"sound":"horn"}"#)
                    group.addTask { try await Self.post(client, "/v1/rides/\(ride.id)/\(path)", as: world.driver, body) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.filter { $0.0 == 201 }.count == 2, "\(answers)")
            #expect(answers.filter { $0 == (409, "no_change") }.count == 8 && answers.filter { $0 == (409, "nothing_to_answer") }.count == 8)
            let kinds = try await world.store.events(rideID: ride.id, after: 0).map(\.kind)
            #expect(kinds.filter { $0 == .carAcross }.count == 1 && kinds.filter { $0 == .locatorAnswered }.count == 1)
        }
        await world.close()
    }

    /// Alternating reports change something each time: the ride's cap stops them, and the
    /// account's budget a minute stops a burst first.
    @Test(arguments: StoreKind.available)
    func eachKindHasACapPerRideAndEachAccountABudgetAMinute(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let clock = SteppedClock(Date())
        let ride = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading }).test(.router) { client in
            let guide = "/v1/rides/\(ride.id)/guide"
            var answers: [(Int, String?)] = []
            for index in 0..<50 {
                clock.advance(60.0 / Double(RideEventLimits.perAccount.count))
                answers.append(try await Self.post(client, guide, as: world.passenger, index % 2 == 0 ? #"{"report":"started"}"# : #"{"report":"stopped"}"#))
            }
            #expect(answers.filter { $0.0 == 201 }.count == 2 * RideEventLimits.guideReportsPerRide, "\(answers)")
            #expect(answers.filter { $0 == (409, "ride_event_limit") }.count == 50 - 2 * RideEventLimits.guideReportsPerRide)
            let reports = try await world.store.events(rideID: ride.id, after: 0).filter { $0.kind == .guideStarted || $0.kind == .guideStopped }
            #expect(reports.count == 2 * RideEventLimits.guideReportsPerRide)

            // A burst with the clock standing still: the account's budget, then 429.
            let other = try await world.arrivedRide()
            let burst = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<(RideEventLimits.perAccount.count + 10) {
                    group.addTask { try await Self.post(client, "/v1/rides/\(other.id)/meeting", as: world.driver, #"{"move":"coming"}"#) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(burst.filter { $0.0 == 429 }.count == 10, "\(burst)")
            #expect(burst.filter { $0.0 == 201 }.count == 1, "\(burst)")
        }
        await world.close()
    }

    /// The driver's ETA updates, each an event on the ride's history, are capped per ride too.
    @Test(arguments: StoreKind.available)
    func etaUpdatesAreCappedPerRide(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            var answers: [(Int, String?)] = []
            for minutes in 0..<(RideHistoryLimits.etaUpdatesPerRide + 5) {
                answers.append(try await Self.post(client, "/v1/rides/\(ride.id)/eta", as: world.driver, #"{"minutes":\#(minutes % 30 + 1)}"#))
            }
            #expect(answers.filter { $0.0 == 200 }.count == RideHistoryLimits.etaUpdatesPerRide, "\(answers)")
            #expect(answers.filter { $0 == (409, "ride_event_limit") }.count == 5)
            let given = try await world.store.events(rideID: ride.id, after: 0).filter { $0.kind == .etaGiven }
            #expect(given.count == RideHistoryLimits.etaUpdatesPerRide)
        }
        await world.close()
    }
}
