import BeaconCore
import Foundation
import RideBeaconTesting
// The ride word's attempts as the server counts them (RideWordPolicy).
import RideServer
import RideSession
import Testing

/// RideSession's `RideService` contract, written once and run on every service that answers for
/// it: the in-memory double (DriverSession and LiveGuide are tested on it, so where it strays
/// from the server their tests prove nothing) and the real server through RideClient's
/// `RideServiceClient`, on SQLite and on PostgreSQL. Each test is one rule the double copies:
/// freshness, slot, identity, resend, touch pairing, the locator and its limit, who may make
/// which meeting move and guide report (and that a repeat changes nothing), the ride word and its
/// attempts, and what the ride's stream says. (The per-ride caps on moves and reports are out of
/// reach here: a repeat is refused first, and the server's per-account rate comes before a cap.)
/// A reason in words is compared by the rule's own sentence, which both carry.
@Suite("RideService contract", .timeLimit(.minutes(3)))
struct RideServiceContractTests {
    // MARK: Touch proofs

    @Test("a fresh proof of the other side's beacon is kept and waits for its counterpart", arguments: ServiceUnderTest.available)
    func freshProofWaits(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let log = UpdateLog(ride.driver.rideUpdates(ride.id))
            defer { log.stop() }
            #expect(await ride.passenger.submitProof(ride.observation(by: .passenger, from: -1), rideID: ride.id) == .awaitingCounterpart)
            #expect(await log.saw { if case .touchObserved(by: .passenger, from: _, until: _) = $0 { true } else { false } },
                    "the driver's stream tells the passenger's touch")
        }
    }

    @Test("freshness: a proof observed longer ago than the proofs' age limit is refused", arguments: ServiceUnderTest.available)
    func staleProofRefused(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let age = TouchProof.maximumAge + 20
            let answer = await ride.passenger.submitProof(ride.observation(by: .passenger, from: -age, until: -age), rideID: ride.id)
            #expect(Self.reason(answer)?.contains("proofs older than \(Int(TouchProof.maximumAge)) s are refused") == true, "\(answer)")
            #expect(await ride.passenger.submitProof(ride.observation(by: .passenger), rideID: ride.id) == .awaitingCounterpart,
                    "the refused proof left nothing behind")
        }
    }

    @Test("freshness: a proof observed ahead of the service's clock is refused", arguments: ServiceUnderTest.available)
    func proofFromTheFutureRefused(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let ahead = TouchProof.maximumAhead + 30
            let answer = await ride.passenger.submitProof(ride.observation(by: .passenger, from: ahead, until: ahead), rideID: ride.id)
            #expect(Self.reason(answer)?.contains("ahead of the server's clock") == true, "\(answer)")
        }
    }

    @Test("slot: a beacon of a slot more than one from the current is refused", arguments: ServiceUnderTest.available)
    func staleSlotRefused(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let answer = await ride.passenger.submitProof(ride.observation(by: .passenger, slotOffset: -3), rideID: ride.id)
            #expect(Self.reason(answer)?.contains("is not within 1 of the server's current slot") == true, "\(answer)")
        }
    }

    @Test("identity: a side's own beacon, or another ride's, proves nothing", arguments: ServiceUnderTest.available)
    func wrongIdentityRefused(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let own = await Self.fresh { await ride.driver.submitProof(ride.observation(by: .driver, beacon: .driver), rideID: ride.id) }
            #expect(Self.reason(own)?.contains("it is your own beacon's identity") == true, "\(own)")
            let other = try RotatingIdentity(rideKey: [UInt8](repeating: 77, count: 32))
            let answer = await Self.fresh {
                var stranger = ride.observation(by: .passenger)
                stranger.identity = other.identity(of: .driver, slot: stranger.slot)
                return await ride.passenger.submitProof(stranger, rideID: ride.id)
            }
            #expect(Self.reason(answer)?.contains("it is not this ride's driver beacon") == true, "\(answer)")
        }
    }

    @Test("resend: the same proof again adds nothing and is refused; a longer touch is kept", arguments: ServiceUnderTest.available)
    func resendRefused(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let first = ride.observation(by: .passenger, from: -4, until: -3)
            #expect(await ride.passenger.submitProof(first, rideID: ride.id) == .awaitingCounterpart)
            let again = await ride.passenger.submitProof(first, rideID: ride.id)
            guard case .rejected = again else { Issue.record("a resent proof was taken: \(again)"); return }
            var longer = first
            longer.unixTime += TouchProof.resentTolerance + 1
            #expect(await ride.passenger.submitProof(longer, rideID: ride.id) == .awaitingCounterpart,
                    "a touch that went on is a new proof")
        }
    }

    @Test("pairing: the other side's simultaneous proof confirms the ride, and its stream says so",
          arguments: ServiceUnderTest.available)
    func mutualProofsConfirm(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let log = UpdateLog(ride.passenger.rideUpdates(ride.id))
            defer { log.stop() }
            #expect(await ride.passenger.submitProof(ride.observation(by: .passenger, from: -2, until: -1), rideID: ride.id)
                    == .awaitingCounterpart)
            #expect(await ride.driver.submitProof(ride.observation(by: .driver, from: -1.5, until: 0), rideID: ride.id) == .confirmed)
            #expect(await log.saw { $0 == .confirmed })
            let late = await ride.passenger.submitProof(ride.observation(by: .passenger), rideID: ride.id)
            #expect(Self.reason(late)?.contains("touch proofs are taken only while it is arrived") == true, "\(late)")
        }
    }

    @Test("pairing: proofs whose windows do not meet are not one touch; a later one that meets confirms",
          arguments: ServiceUnderTest.available)
    func notSimultaneousThenMeeting(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            #expect(await ride.passenger.submitProof(ride.observation(by: .passenger, from: -8, until: -7), rideID: ride.id)
                    == .awaitingCounterpart)
            // Ends 2.5 s before the later one, so that one is no resend (1 s, on the wire's milliseconds).
            #expect(await ride.driver.submitProof(ride.observation(by: .driver, from: -3, until: -2.5), rideID: ride.id)
                    == .notSimultaneous)
            #expect(await ride.driver.submitProof(ride.observation(by: .driver, from: -7.5, until: 0), rideID: ride.id) == .confirmed)
        }
    }

    // MARK: The locator

    @Test("locator: the passenger asks and the car ticks; again at once is too soon; the driver may not ask; one answer a request",
          arguments: ServiceUnderTest.available)
    func locatorRequests(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let log = UpdateLog(ride.driver.rideUpdates(ride.id))
            defer { log.stop() }
            #expect(await ride.driver.answerLocator(rideID: ride.id, sound: .device) != nil, "nothing was asked yet")
            #expect(await ride.passenger.requestLocator(rideID: ride.id) == .ticking(seconds: Double(LocatorRule.soundSeconds)))
            guard case .tooSoon(let retryAfter) = await ride.passenger.requestLocator(rideID: ride.id) else {
                Issue.record("a second request at once was not too soon"); return
            }
            #expect(retryAfter > 0 && retryAfter <= LocatorRule.minimumInterval)
            guard case .refused = await ride.driver.requestLocator(rideID: ride.id) else {
                Issue.record("the driver asked for his own car's locator"); return
            }
            #expect(await log.saw { if case .locatorRequested = $0 { true } else { false } }, "the driver's device hears the request")
            #expect(await ride.passenger.answerLocator(rideID: ride.id, sound: .device) != nil, "only the driver answers")
            #expect(await ride.driver.answerLocator(rideID: ride.id, sound: .device) == nil)
            #expect(await ride.driver.answerLocator(rideID: ride.id, sound: .horn) != nil, "one answer per request")
            #expect(await log.saw { if case .locatorAnswered(.device, unixTime: _) = $0 { true } else { false } })
        }
    }

    // MARK: Asking the driver to come (issue 37, point 2)

    @Test("come requests: the passenger asks and the driver's device hears it; again at once is too soon; the driver may not ask",
          arguments: ServiceUnderTest.available)
    func comeRequests(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let log = UpdateLog(ride.driver.rideUpdates(ride.id))
            defer { log.stop() }
            #expect(await ride.driver.answerCome(rideID: ride.id, .received) != nil, "nothing was asked yet")
            #expect(await ride.passenger.askToCome(rideID: ride.id) == .asked)
            guard case .tooSoon(let retryAfter) = await ride.passenger.askToCome(rideID: ride.id) else {
                Issue.record("a second come request at once was not too soon"); return
            }
            #expect(retryAfter > 0, "wait for the answer before asking again")
            guard case .refused = await ride.driver.askToCome(rideID: ride.id) else {
                Issue.record("the driver asked himself to come"); return
            }
            #expect(await log.saw { if case .comeRequested = $0 { true } else { false } }, "the driver's device hears the request")
        }
    }

    @Test("come answers: only the driver's device answers, one received and one answer per request, and her stream says each",
          arguments: ServiceUnderTest.available)
    func comeAnswers(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let log = UpdateLog(ride.passenger.rideUpdates(ride.id))
            defer { log.stop() }
            #expect(await ride.passenger.askToCome(rideID: ride.id) == .asked)
            #expect(await ride.passenger.answerCome(rideID: ride.id, .coming) != nil, "only the driver answers")
            #expect(await ride.driver.answerCome(rideID: ride.id, .received) == nil)
            #expect(await ride.driver.answerCome(rideID: ride.id, .received) != nil, "one received per request")
            #expect(await ride.driver.answerCome(rideID: ride.id, .staying) == nil)
            #expect(await ride.driver.answerCome(rideID: ride.id, .coming) != nil, "one answer per request")
            #expect(await log.saw { if case .comeAnswered(.received, unixTime: _) = $0 { true } else { false } })
            #expect(await log.saw { if case .comeAnswered(.staying, unixTime: _) = $0 { true } else { false } })
        }
    }

    @Test("come requests: only while arrived", arguments: ServiceUnderTest.available)
    func comeRequestAfterTheRide(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            try await ride.cancel()
            guard case .refused = await ride.passenger.askToCome(rideID: ride.id) else {
                Issue.record("a come request on a cancelled ride was taken"); return
            }
        }
    }

    // MARK: Meeting moves and guide reports

    @Test("meeting moves: the driver says he is coming, either says the car is across, and saying it again changes nothing",
          arguments: ServiceUnderTest.available)
    func meetingMoves(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let log = UpdateLog(ride.passenger.rideUpdates(ride.id))
            defer { log.stop() }
            #expect(await ride.passenger.meetingMove(rideID: ride.id, .coming) != nil, "only the driver walks over")
            #expect(await ride.passenger.meetingMove(rideID: ride.id, .across) == nil)
            #expect(await log.saw { if case .meeting(.across, unixTime: _) = $0 { true } else { false } })
            #expect(await ride.driver.meetingMove(rideID: ride.id, .across) != nil, "the car is across already")
            #expect(await ride.driver.meetingMove(rideID: ride.id, .coming) == nil)
            #expect(await ride.driver.meetingMove(rideID: ride.id, .coming) != nil, "he said he is coming already")
        }
    }

    @Test("guide reports: the passenger's guide starts and stops, never the same twice in a row; it stops after the confirmation too",
          arguments: ServiceUnderTest.available)
    func guideReports(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            #expect(await ride.driver.reportGuide(rideID: ride.id, .started) != nil, "only the passenger's guide reports")
            #expect(await ride.passenger.reportGuide(rideID: ride.id, .started) == nil)
            #expect(await ride.passenger.reportGuide(rideID: ride.id, .started) != nil, "started twice changes nothing")
            #expect(await ride.passenger.reportGuide(rideID: ride.id, .stopped) == nil)
            #expect(await ride.passenger.reportGuide(rideID: ride.id, .started) == nil)
            #expect(await ride.passenger.confirmByRideWord(rideID: ride.id, word: ride.word) == .confirmed)
            #expect(await ride.passenger.reportGuide(rideID: ride.id, .stopped) == nil, "the guide stops after the confirmation")
            #expect(await ride.passenger.reportGuide(rideID: ride.id, .started) != nil, "it starts only while arrived")
        }
    }

    // MARK: The ride word

    @Test("ride word: the right word confirms, a wrong one does not", arguments: ServiceUnderTest.available)
    func rideWordConfirms(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            guard case .rejected = await ride.passenger.confirmByRideWord(rideID: ride.id, word: "purple elephant") else {
                Issue.record("a wrong word confirmed"); return
            }
            #expect(await ride.driver.confirmByRideWord(rideID: ride.id, word: ride.word) != .confirmed, "only the passenger says it")
            #expect(await ride.passenger.confirmByRideWord(rideID: ride.id, word: ride.word.uppercased()) == .confirmed)
        }
    }

    @Test("ride word: after the ride's attempts are spent, even the right word no longer confirms",
          arguments: ServiceUnderTest.available)
    func rideWordAttemptsRunOut(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            for _ in 0..<RideWordPolicy.attemptsPerRide {
                _ = await ride.passenger.confirmByRideWord(rideID: ride.id, word: "purple elephant")
            }
            guard case .rejected = await ride.passenger.confirmByRideWord(rideID: ride.id, word: ride.word) else {
                Issue.record("the right word confirmed after \(RideWordPolicy.attemptsPerRide) wrong ones"); return
            }
            #expect(await ride.passenger.submitProof(ride.observation(by: .passenger), rideID: ride.id) == .awaitingCounterpart,
                    "the touch still confirms")
        }
    }

    // MARK: The ride's stream

    @Test("the stream: a follower hears the ride arrived, then its cancellation, and proofs are refused after",
          arguments: ServiceUnderTest.available)
    func streamTellsArrivalAndCancellation(_ service: ServiceUnderTest) async throws {
        try await service.withArrivedRide { ride in
            let log = UpdateLog(ride.passenger.rideUpdates(ride.id))
            defer { log.stop() }
            #expect(await log.saw { $0 == .reachable(true) })
            #expect(await log.saw { $0 == .arrived }, "the history is replayed: \(log.all)")
            try await ride.cancel()
            #expect(await log.saw { $0 == .cancelled })
            guard case .rejected = await ride.passenger.submitProof(ride.observation(by: .passenger), rideID: ride.id) else {
                Issue.record("a proof on a cancelled ride was taken"); return
            }
            guard case .refused = await ride.passenger.requestLocator(rideID: ride.id) else {
                Issue.record("a locator request on a cancelled ride was taken"); return
            }
        }
    }

    /// Submits a proof stamped now, again (up to 3 times) while the answer is only that it
    /// arrived stale: on a loaded machine one request took 18 s, past the 10 s freshness rule,
    /// and a test of another rule must not read that as its own refusal.
    static func fresh(_ submit: () async -> ProofAnswer) async -> ProofAnswer {
        var answer = await submit()
        for _ in 0..<3 where reason(answer)?.contains("proofs older than") == true { answer = await submit() }
        return answer
    }

    static func reason(_ answer: ProofAnswer) -> String? {
        if case .rejected(let reason) = answer { return reason }
        return nil
    }
}
