import BeaconCore
import Foundation
import Synchronization

/// What a device knows of the two positions at a moment (issue 35): its own latest fix and
/// the ride's other party's, as the ride service last gave it. Either may be missing.
public struct PositionUpdate: Sendable, Equatable {
    /// This device's latest fix, as its source gave it but for the course: on the driver's
    /// device the car's parked course once it has arrived (`PositionSharing.arrived()`), else none.
    public var own: GeoFix?
    /// The other party's latest fix from the service (the driver's carries the car's parked
    /// course once the car has arrived).
    public var other: GeoFix?

    public init(own: GeoFix?, other: GeoFix?) {
        self.own = own
        self.other = other
    }
}

/// One device's side of a ride's positions (issue 35): reports this device's fixes to the
/// ride service and polls for the other party's, until the ride no longer takes them.
///
/// - Reports at most once per `Policy.minimumInterval` (the service's rate), only a fix that
///   differs from the last one kept (or one `refreshSeconds` newer, so the service's copy does
///   not go stale), waiting out a 429's Retry-After, backing off while the service cannot be
///   reached, and stopping quietly once the ride is over (409).
/// - Polls the other party's position every `pollSeconds`; each change is an update.
/// - On the driver's device, `arrived()` sends a report at once carrying the car's course:
///   the last course its source gave while moving (GeoClue's Heading at speed), kept for every
///   report after it, since the server keeps only the latest and the driver may walk on.
///
/// ```swift
/// let sharing = PositionSharing(rideID: ride.id, side: .passenger, source: source, service: client)
/// let running = Task { await sharing.run() }
/// for await update in sharing.updates { guide.positions(own: update.own, other: update.other) }
/// ```
public final class PositionSharing: Sendable {
    public struct Policy: Sendable, Equatable {
        /// Least time between two reports, s: the service takes about one a second.
        public var minimumInterval = 1.0
        /// An unchanged position is reported again when its fix is this much newer, s: the
        /// other device then never holds one much older than this plus a poll (the guide uses a
        /// fix for 15 s by the wall clock, LiveGuide).
        public var refreshSeconds = 5.0
        /// Between two polls of the other party's position, s.
        public var pollSeconds = 2.0
        /// The first pause after a failed call, s; it doubles up to `maximumBackoff`.
        public var initialBackoff = 2.0
        public var maximumBackoff = 30.0

        public init() {}
    }

    public let rideID: String
    /// Whose device this is: the driver's reports carry the car's course after `arrived()`;
    /// the passenger's carry none (a walker's course says nothing the guide uses).
    public let side: BeaconSide
    public let policy: Policy
    /// Every change of either position, newest last (one consumer; older ones dropped when it lags).
    public let updates: AsyncStream<PositionUpdate>

    private let source: any PositionSource
    private let service: any RideService
    private let clock: any SessionClock
    private let log: @Sendable (String) -> Void
    private let feed: AsyncStream<PositionUpdate>.Continuation
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private struct State {
        var own: GeoFix?
        var other: GeoFix?
        /// The last course the source gave while moving.
        var movingCourse: Double?
        /// The car's course, frozen at `arrived()`.
        var parkedCourse: Double?
        var arrived = false
        /// `arrived()` calls, and how many of them a kept report has answered: each asks for a
        /// report even if nothing changed.
        var arrivals = 0
        var arrivalsReported = 0
        var lastKept: GeoFix?
        var lastKeptAt: Double?
        /// No report before this (`clock.now`): the rate, a Retry-After, a back-off.
        var notBefore = -Double.infinity
        var running = false
        var said: Set<String> = []
        /// The source's stream has ended (a source that went away is not re-stamped).
        var sourceEnded = false
    }
    private let state = Mutex(State())

    public init(rideID: String, side: BeaconSide, source: any PositionSource, service: any RideService,
                clock: any SessionClock = SystemClock(), policy: Policy = Policy(),
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.rideID = rideID
        self.side = side
        self.source = source
        self.service = service
        self.clock = clock
        self.policy = policy
        self.log = log
        (updates, feed) = AsyncStream<PositionUpdate>.makeStream(bufferingPolicy: .bufferingNewest(16))
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The two positions now.
    public var latest: PositionUpdate { state.withLock { PositionUpdate(own: ownForUpdates($0), other: $0.other) } }

    /// The car's course as reported since `arrived()`, degrees (nil: none known).
    public var parkedCourse: Double? { state.withLock { $0.parkedCourse } }

    /// The driver's car has stopped at the pickup: the course it last moved on is the car's
    /// from now on, and the next report (as soon as the rate allows) carries it.
    public func arrived() {
        let update = state.withLock { state -> PositionUpdate in
            if !state.arrived { state.parkedCourse = state.movingCourse }
            state.arrived = true
            state.arrivals += 1
            return PositionUpdate(own: ownForUpdates(state), other: state.other)
        }
        if side == .driver, update.own != nil { feed.yield(update) }
        wake.yield()
    }

    /// Reads the source, reports and polls until cancelled or until the ride takes positions
    /// no more (both the reports and the polls refused for good); then `updates` ends. Once.
    public func run() async {
        let first = state.withLock { state in
            defer { state.running = true }
            return !state.running
        }
        guard first else { return }
        enum Part { case reader, restamper, reporter, poller }
        await withTaskGroup(of: Part.self) { group in
            group.addTask { await self.readFixes(); return .reader }
            group.addTask { await self.restampQuietFixes(); return .restamper }
            group.addTask { await self.report(); return .reporter }
            group.addTask { await self.poll(); return .poller }
            var ended: Set<Part> = []
            while let part = await group.next() {
                ended.insert(part)
                if ended.contains(.reporter), ended.contains(.poller) { group.cancelAll() }
            }
        }
        feed.finish()
    }

    // MARK: The three parts

    private func readFixes() async {
        for await fix in source.fixes() {
            let update = state.withLock { state -> PositionUpdate in
                state.own = fix
                if let course = fix.courseDegrees { state.movingCourse = course }
                return PositionUpdate(own: ownForUpdates(state), other: state.other)
            }
            feed.yield(update)
            wake.yield()
        }
        // No more fixes: the reporter sends what it holds, then stops waiting.
        state.withLock { $0.sourceEnded = true }
        wake.finish()
    }

    /// GeoClue tells a change, not the time: a parked phone's fix may be minutes old while it
    /// is still where it says, and the guide drops a fix 15 s old (LiveGuide). While the source
    /// lives and has given nothing newer for `refreshSeconds`, its last fix stands for now: it
    /// is stamped with the wall clock (for this device's guide and for the report). A source
    /// that ended is left to age.
    private func restampQuietFixes() async {
        while !Task.isCancelled {
            do { try await clock.sleep(seconds: policy.refreshSeconds) } catch { return }
            let now = clock.unixTime
            let update = state.withLock { state -> PositionUpdate? in
                guard !state.sourceEnded, let own = state.own, now - own.unixTime >= policy.refreshSeconds else { return nil }
                state.own?.unixTime = now
                return PositionUpdate(own: ownForUpdates(state), other: state.other)
            }
            if state.withLock({ $0.sourceEnded }) { return }
            guard let update else { continue }
            feed.yield(update)
            wake.yield()
        }
    }

    /// This device's fix as the updates give it: the car's parked course on the driver's
    /// device once arrived, else no course (a moving course is not the car's kerb side).
    private func ownForUpdates(_ state: State) -> GeoFix? {
        guard var own = state.own else { return nil }
        own.courseDegrees = side == .driver && state.arrived ? state.parkedCourse : nil
        return own
    }

    private enum Next { case send(GeoFix, arrivals: Int), sleep(Double), waitForFix }

    private func report() async {
        var wakeups = wakes.makeAsyncIterator()
        var failures = 0
        while !Task.isCancelled {
            switch next(now: clock.now) {
            case .waitForFix:
                if await wakeups.next() == nil, case .waitForFix = next(now: clock.now) { return }
            case .sleep(let seconds):
                do { try await clock.sleep(seconds: seconds) } catch { return }
            case .send(let fix, let arrivals):
                let refusal = await service.reportPosition(rideID: rideID, fix)
                let now = clock.now
                switch refusal {
                case nil:
                    failures = 0
                    state.withLock { state in
                        state.lastKept = fix
                        state.lastKeptAt = now
                        state.notBefore = now + policy.minimumInterval
                        // An `arrived()` during the call still owes its own report.
                        state.arrivalsReported = max(state.arrivalsReported, arrivals)
                    }
                case .tooSoon(let retryAfter)?:
                    state.withLock { $0.notBefore = now + max(retryAfter, policy.minimumInterval) }
                case .failed(let reason)?:
                    failures += 1
                    if failures == 1 { say("positions: not reported (\(reason)); trying again") }
                    let backoff = min(policy.maximumBackoff, policy.initialBackoff * pow(2, Double(failures - 1)))
                    state.withLock { $0.notBefore = now + backoff }
                case .rideOver?:
                    return   // the ride has ended: nothing to say, nothing more to send
                case .refused(let reason)?:
                    say("positions: not shared (\(reason))")
                    return
                }
            }
        }
    }

    /// What the reporter does next, decided under the lock.
    private func next(now: Double) -> Next {
        state.withLock { state -> Next in
            guard let own = state.own else { return .waitForFix }
            var outgoing = own
            switch side {
            case .driver: if state.arrived { outgoing.courseDegrees = state.parkedCourse }
            case .passenger: outgoing.courseDegrees = nil
            }
            let due: Bool
            if let kept = state.lastKept, let keptAt = state.lastKeptAt, state.arrivalsReported == state.arrivals {
                let moved = kept.latitude != outgoing.latitude || kept.longitude != outgoing.longitude
                    || kept.accuracyMeters != outgoing.accuracyMeters || kept.courseDegrees != outgoing.courseDegrees
                let refresh = outgoing.unixTime - kept.unixTime >= policy.refreshSeconds && now - keptAt >= policy.refreshSeconds
                due = moved || refresh
            } else {
                due = true
            }
            guard due else { return .waitForFix }
            if now < state.notBefore { return .sleep(state.notBefore - now) }
            return .send(outgoing, arrivals: state.arrivals)
        }
    }

    private func poll() async {
        var failures = 0
        while !Task.isCancelled {
            var wait = policy.pollSeconds
            switch await service.otherPartyPosition(rideID: rideID) {
            case .success(let fix):
                failures = 0
                let update = state.withLock { state -> PositionUpdate? in
                    guard state.other != fix else { return nil }
                    state.other = fix
                    return PositionUpdate(own: state.own, other: fix)
                }
                if let update { feed.yield(update) }
            case .failure(.tooSoon(let retryAfter)):
                wait = max(retryAfter, policy.pollSeconds)
            case .failure(.failed(let reason)):
                failures += 1
                if failures == 1 { say("positions: the other party's is not available (\(reason)); trying again") }
                wait = max(policy.pollSeconds, min(policy.maximumBackoff, policy.initialBackoff * pow(2, Double(failures - 1))))
            case .failure(.rideOver):
                return
            case .failure(.refused(let reason)):
                say("positions: the other party's is not shared (\(reason))")
                return
            }
            do { try await clock.sleep(seconds: wait) } catch { return }
        }
    }

    /// Each sentence once: a device that cannot reach the service says so, not every second.
    private func say(_ line: String) {
        let first = state.withLock { $0.said.insert(line).inserted }
        if first { log(line) }
    }
}
