import BeaconCore
import Foundation
import SessionDoubles
import TestSupport
import RideSession
import Synchronization
import Testing

/// `PositionSharing` (issue 35) in virtual time against the in-memory ride service (the
/// server's position rules: the ride's parties, while accepted or arrived, about one a second):
/// what was reported, with which course, and what the device learnt of the other party.
@Suite("PositionSharing")
struct PositionSharingTests {
    static let start = 1_700_000_010.0
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 7, count: 32))
    static let kerb = GeoFix(latitude: 52.3702, longitude: 4.8952, accuracyMeters: 5, unixTime: start)

    struct Rig {
        let clock = VirtualClock(unixTime: PositionSharingTests.start)
        let service: InMemoryRideService
        let fixes: AsyncStream<GeoFix>
        let emit: AsyncStream<GeoFix>.Continuation
        let logged = Lines()

        init(state: RideState = .accepted) {
            service = InMemoryRideService(rideID: "ride-1", identity: PositionSharingTests.identity, state: state, clock: clock)
            (fixes, emit) = AsyncStream<GeoFix>.makeStream()
        }

        func sharing(_ side: BeaconSide, policy: PositionSharing.Policy = .init()) -> PositionSharing {
            PositionSharing(rideID: "ride-1", side: side, source: StreamPositionSource(fixes),
                            service: side == .driver ? service.driver : service.passenger, clock: clock, policy: policy,
                            log: logged.append)
        }

        /// The fixes of `side` the service kept, in order.
        func kept(_ side: BeaconSide) -> [GeoFix] {
            service.calls.compactMap { if case .position(side, let fix) = $0 { fix } else { nil } }
        }

        /// `east` metres east of the kerb at virtual time now, moving on `course` (nil: stopped).
        func fix(east: Double, course: Double? = nil) -> GeoFix {
            var fix = PositionSharingTests.kerb.moved(east: east, north: 0)
            fix.courseDegrees = course
            fix.unixTime = clock.unixTime
            return fix
        }
    }

    @Test("the passenger's fixes reach the service at most once a second, an unchanged one not at all; the driver's position comes back as an update")
    func reportsAndPolls() async throws {
        let rig = Rig()
        let sharing = rig.sharing(.passenger)
        let updates = Mutex<[PositionUpdate]>([])
        let run = Task { await sharing.run() }
        let reader = Task { for await update in sharing.updates { updates.withLock { $0.append(update) } } }

        rig.emit.yield(rig.fix(east: 0, course: 270))
        #expect(await eventually { rig.kept(.passenger).count == 1 })
        // A walker's course is not sent: the course on the wire is the car's.
        #expect(rig.kept(.passenger).first?.courseDegrees == nil)
        // Two new fixes within the second: only the newest goes, once the second is over.
        rig.emit.yield(rig.fix(east: 1))
        rig.emit.yield(rig.fix(east: 2))
        #expect(await rig.clock.advance(by: 0.25) { rig.kept(.passenger).count == 2 })
        #expect(rig.kept(.passenger).last == rig.fix(east: 2).withTime(rig.kept(.passenger).last?.unixTime ?? 0))
        // The same place again (a fresh time within the refresh): nothing sent.
        rig.emit.yield(rig.fix(east: 2))
        rig.clock.advance(by: 3)
        try await Task.sleep(for: .milliseconds(100))
        #expect(rig.kept(.passenger).count == 2)

        // The driver reports (his own device); the passenger's poll brings it as an update.
        let car = PositionSharingTests.kerb.moved(east: 25, north: 0)
        #expect(await rig.service.driver.reportPosition(rideID: "ride-1", car) == nil)
        #expect(await rig.clock.advance(by: 0.5) { updates.withLock { $0.last?.other } == car })
        #expect(updates.withLock { $0.last?.own }?.longitude == rig.fix(east: 2).longitude)
        #expect(sharing.latest.other == car)

        // The same place, a fix `refreshSeconds` newer: sent again, so the driver's device
        // never holds one too old to use.
        rig.clock.advance(by: PositionSharing.Policy().refreshSeconds)
        let fresh = rig.fix(east: 2)
        rig.emit.yield(fresh)
        #expect(await eventually { rig.kept(.passenger).count == 3 })
        #expect(rig.kept(.passenger).last?.unixTime == fresh.unixTime)

        run.cancel()
        await run.value
        await reader.value   // the updates end with the run
        #expect(rig.logged.all.isEmpty, "\(rig.logged.all)")
    }

    @Test("at arrival the driver's report carries the course the car last moved on, and keeps it when he walks on")
    func arrivalCarriesTheCarsCourse() async throws {
        let rig = Rig()
        let sharing = rig.sharing(.driver)
        let run = Task { await sharing.run() }
        // Driving east, then north, then stopped (a stopped car has no course).
        rig.emit.yield(rig.fix(east: 0, course: 90))
        #expect(await eventually { rig.kept(.driver).count == 1 })
        #expect(rig.kept(.driver).last?.courseDegrees == 90, "on the approach the moving course goes as it is")
        rig.clock.advance(by: 1)
        rig.emit.yield(rig.fix(east: 10, course: 2.5))
        #expect(await eventually { rig.kept(.driver).count == 2 })
        rig.clock.advance(by: 1)
        rig.emit.yield(rig.fix(east: 12))
        #expect(await eventually { rig.kept(.driver).count == 3 })
        #expect(rig.kept(.driver).last?.courseDegrees == nil)

        rig.clock.advance(by: 1)
        sharing.arrived()
        #expect(await eventually { rig.kept(.driver).count == 4 }, "arrival is reported even where nothing moved")
        #expect(rig.kept(.driver).last?.courseDegrees == 2.5)
        #expect(rig.kept(.driver).last?.longitude == rig.fix(east: 12).longitude)
        #expect(sharing.parkedCourse == 2.5)
        // The driver's own core hears its fix with the car's course from now on (none before).
        #expect(sharing.latest.own?.courseDegrees == 2.5)

        // He walks away from the car at walking pace: his course is not the car's.
        rig.clock.advance(by: 1)
        rig.emit.yield(rig.fix(east: 15, course: 200))
        #expect(await eventually { rig.kept(.driver).count == 5 })
        #expect(rig.kept(.driver).last?.courseDegrees == 2.5)
        run.cancel()
        await run.value
    }

    @Test("a 429 is waited out: nothing is sent before its Retry-After, the newest fix after it")
    func tooSoonIsWaitedOut() async throws {
        let rig = Rig()
        var policy = PositionSharing.Policy()
        policy.minimumInterval = 0.2   // faster than the service takes them
        let sharing = rig.sharing(.passenger, policy: policy)
        let run = Task { await sharing.run() }
        rig.emit.yield(rig.fix(east: 0))
        #expect(await eventually { rig.kept(.passenger).count == 1 })
        let keptAt = rig.clock.now
        rig.clock.advance(by: 0.2)
        rig.emit.yield(rig.fix(east: 3))
        // Refused (0.2 s after the first); the sharing waits the 0.8 s the service asked.
        #expect(await rig.clock.advance(by: 0.05) { rig.kept(.passenger).count == 2 })
        #expect(rig.clock.now - keptAt >= InMemoryRideService.positionInterval - 1e-9)
        #expect(rig.kept(.passenger).last?.longitude == rig.fix(east: 3).longitude)
        run.cancel()
        await run.value
    }

    /// GeoClue emits on change: a parked phone can say nothing for minutes. While the source
    /// lives its last fix stands for now (re-stamped, reported again, given to this device's
    /// guide); once the source has ended, the fix is left to age and nothing more is sent.
    @Test("a quiet source's last fix is re-stamped while it lives, and left to age once it ends")
    func aQuietSourceStandsByItsLastFix() async throws {
        let rig = Rig(state: .arrived)
        let sharing = rig.sharing(.driver)
        let run = Task { await sharing.run() }
        let first = rig.fix(east: 0)
        rig.emit.yield(first)
        #expect(await eventually { rig.kept(.driver).count == 1 })
        let refresh = PositionSharing.Policy().refreshSeconds
        #expect(await rig.clock.advance(by: 0.5) { rig.kept(.driver).count == 2 })
        let again = try #require(rig.kept(.driver).last)
        #expect(again.latitude == first.latitude && again.longitude == first.longitude && again.accuracyMeters == first.accuracyMeters)
        #expect(again.unixTime >= first.unixTime + refresh, "stamped when it was re-sent, not when GeoClue last spoke")
        #expect((sharing.latest.own?.unixTime ?? 0) >= first.unixTime + refresh, "this device's guide gets it fresh too")

        rig.emit.finish()
        try await Task.sleep(for: .milliseconds(100))
        let stamped = sharing.latest.own?.unixTime
        rig.clock.advance(by: 3 * refresh)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sharing.latest.own?.unixTime == stamped, "a source that ended is left to age")
        #expect(rig.kept(.driver).count == 2)
        run.cancel()
        await run.value
    }

    @Test("once the ride is over the sharing stops by itself, saying nothing")
    func stopsQuietlyWhenTheRideEnds() async throws {
        let rig = Rig(state: .arrived)
        let sharing = rig.sharing(.passenger)
        let ended = Mutex(false)
        let run = Task {
            await sharing.run()
            ended.withLock { $0 = true }
        }
        rig.emit.yield(rig.fix(east: 0))
        #expect(await eventually { rig.kept(.passenger).count == 1 })
        #expect(rig.service.move(to: .cancelled))
        rig.clock.advance(by: 2)
        rig.emit.yield(rig.fix(east: 5))
        // Both the report and the poll hear 409; the run ends without being cancelled.
        #expect(await rig.clock.advance(by: 0.5) { ended.withLock { $0 } })
        run.cancel()
        await run.value
        #expect(rig.kept(.passenger).count == 1)
        #expect(rig.logged.all.isEmpty, "\(rig.logged.all)")
    }

    @Test("a service that keeps no positions is said once and the ride goes on")
    func serviceWithoutPositions() async throws {
        struct Keepless: RideService {
            func submitProof(_ observation: TouchObservation, rideID: String) async -> ProofAnswer { .rejected("no") }
            func rideUpdates(_ rideID: String) -> AsyncStream<RideUpdate> { AsyncStream { $0.finish() } }
            func requestLocator(rideID: String) async -> LocatorAnswer { .refused("no") }
            func answerLocator(rideID: String, sound: LocatorSoundName) async -> String? { nil }
            func meetingMove(rideID: String, _ move: MeetingMove) async -> String? { nil }
            func reportGuide(rideID: String, _ report: GuideReport) async -> String? { nil }
            func confirmByRideWord(rideID: String, word: String) async -> ProofAnswer { .rejected("no") }
        }
        let clock = VirtualClock(unixTime: Self.start)
        let logged = Lines()
        let source = try FixedPositionSource(parsing: "52.3702,4.8952", clock: clock)
        let sharing = PositionSharing(rideID: "ride-1", side: .driver, source: source, service: Keepless(), clock: clock, log: logged.append)
        await sharing.run()   // both halves refused for good: it ends by itself
        // The two halves stop in either order.
        #expect(Set(logged.all) == ["positions: not shared (this ride service keeps no positions)",
                                    "positions: the other party's is not shared (this ride service keeps no positions)"])
        #expect(logged.all.count == 2)
    }

    @Test("--position values: LAT,LON[,ACCURACY] in range, or a sentence naming the part at fault")
    func fixedPositionParsing() throws {
        let clock = VirtualClock(unixTime: Self.start)
        let fixed = try FixedPositionSource(parsing: "52.3702, 4.8952,3.5", clock: clock)
        #expect(fixed.fix == GeoFix(latitude: 52.3702, longitude: 4.8952, accuracyMeters: 3.5, unixTime: Self.start))
        #expect(try FixedPositionSource(parsing: "-33.9,151.2", clock: clock).accuracyMeters == FixedPositionSource.defaultAccuracyMeters)
        for (text, words) in [("52.37", "expected LAT,LON"), ("91,4", "latitude must be -90 to 90"), ("52,181", "longitude must be -180 to 180"),
                              ("52,4,0", "accuracy must be more than 0"), ("north,4", "latitude must be a number"),
                              ("52,4,5,6", "expected LAT,LON"), ("52,nan", "longitude must be a number")] {
            #expect(throws: FixedPositionSource.Invalid.self) { try FixedPositionSource(parsing: text, clock: clock) }
            do { _ = try FixedPositionSource(parsing: text, clock: clock) } catch {
                #expect(error.description.contains(words), "\(text): \(error)")
            }
        }
    }
}

extension GeoFix {
    fileprivate func withTime(_ unixTime: Double) -> GeoFix {
        var fix = self
        fix.unixTime = unixTime
        return fix
    }
}
