import BeaconCore
import Foundation
import RideRules
import RideSession
import Synchronization

/// One ride's service in process, keeping the server's rules by calling them where the server
/// does (RideRules), so the session runtimes (`DriverSession`, `LiveGuide`) are tested whole
/// without HTTP:
///
/// - the ride's states (`RideLifecycle`): proofs, locator requests and meeting moves only
///   while `arrived`; confirmed by the touch, then completed, or cancelled before that;
/// - touch proofs checked as the server checks RideWire's `TouchProof` (each side's session sends
///   `TouchProof(observation)`): `TouchProofCheck` (fresh, the slot within one of the current,
///   the identity the counterpart advertises in that slot), and `TouchPairing.isResend`;
/// - the mutual policy, `TouchPairing.outcome` on receive times: a proof confirms when the other
///   side's was received within `MutualTouchRule.pairingWindow` and their windows are
///   simultaneous; otherwise the other side hears `touchObserved`;
/// - the locator: `RideLimits.locatorRetryAfter` (once per `LocatorRule.minimumInterval`),
///   ticking `LocatorRule.soundSeconds`, one answer per request;
/// - meeting moves and guide reports as the server takes them (who, in which state, a repeat
///   refused, the per-ride caps), and the ride word's attempts.
///
/// RideClientTests' `RideServiceContractTests` runs one suite on this double and on the real
/// server (both stores): where they part, it fails.
///
/// Each side is a `RideService` (`service.driver`, `service.passenger`), like two accounts'
/// clients; both see one history (`rideUpdates` replays it, then follows). `calls` records
/// what was asked and answered, in order.
///
/// ```swift
/// let service = InMemoryRideService(rideID: "ride-1", identity: identity, clock: clock)
/// let session = DriverSession(rideID: "ride-1", identity: identity, ..., service: service.driver, clock: clock, ...)
/// _ = await service.passenger.submitProof(passengersObservation, rideID: "ride-1")  // .awaitingCounterpart
/// #expect(service.calls == [.proof(.passenger, .awaitingCounterpart)])
/// ```
public final class InMemoryRideService: Sendable {
    /// A request and its answer, as `calls` records them.
    public enum Call: Equatable, Sendable {
        case proof(BeaconSide, ProofAnswer)
        case locatorRequested(LocatorAnswer)
        case locatorAnswered(LocatorSoundName)
        case meeting(MeetingMove)
        case guide(GuideReport)
        /// The passenger's come request and its answer.
        case comeRequested(ComeRequestAnswer)
        case comeAnswered(ComeAnswer)
        case rideWord(String, ProofAnswer)
        /// A request refused before it reached the ride (wrong ride, wrong state); the reason.
        case refused(String)
        /// A side's satellite fix, kept (issue 35).
        case position(BeaconSide, GeoFix)
    }

    /// Least time between two kept positions of one side, s (the server's "about one a second").
    public static let positionInterval = 1.0

    private struct State {
        var rideState: RideState
        var history: [RideUpdate] = []
        var followers: [UInt64: AsyncStream<RideUpdate>.Continuation] = [:]
        var nextFollower: UInt64 = 0
        var proofs: [KeptTouchProof] = []
        var lastLocatorRequest: Double?
        var calls: [Call] = []
        /// Each side's latest fix and when it was kept (`clock.now`), while accepted or arrived.
        var positions: [BeaconSide: (fix: GeoFix, keptAt: Double)] = [:]
        /// Meeting moves and guide reports taken, per kind (the ride's caps, `RideLimits`).
        var eventCounts: [RideEventKind: Int] = [:]
        /// The moves said on this ride: saying one again changes nothing, and the server refuses it.
        var saidMoves: Set<MeetingMove> = []
        var lastGuideReport: GuideReport?
        /// Locator requests taken and answers given: one answer per request.
        var locatorRequests = 0
        var locatorAnswers = 0
        /// Ride words tried, right or wrong (`RideLimits.rideWordAttemptsPerRide`).
        var rideWordAttempts = 0
        /// Come requests (`RideLimits.comeRetryAfter`, `comeRequestsPerRide`) and the answers
        /// to them by kind: one `received` and one `coming`/`staying` per request.
        var lastComeRequest: Double?
        var comeRequests = 0
        var comeAnswers: [RideEventKind: Int] = [:]
        /// Told of every update as it is published (`observe`).
        var observers: [@Sendable (RideUpdate) -> Void] = []
    }

    public let rideID: String
    public let identity: RotatingIdentity
    /// The words both devices derive from the ride key; nil: the ride has none.
    public let rideWord: String?
    private let clock: any SessionClock
    private let state: Mutex<State>

    /// The ride `rideID` in `state`, its identities from `identity`, its rules' times read off
    /// `clock`'s wall clock (`unixTime`).
    public init(rideID: String, identity: RotatingIdentity, state: RideState = .arrived, rideWord: String? = nil,
                clock: any SessionClock) {
        self.rideID = rideID
        self.identity = identity
        self.rideWord = rideWord
        self.clock = clock
        var initial = State(rideState: state)
        if state == .arrived { initial.history = [.arrived] }
        self.state = Mutex(initial)
    }

    /// The driver's account's view of the service.
    public var driver: Side { Side(service: self, side: .driver) }
    /// The passenger's account's view of the service.
    public var passenger: Side { Side(service: self, side: .passenger) }

    /// The ride's state now.
    public var rideState: RideState { state.withLock { $0.rideState } }
    /// What was asked of the service and what it answered, in order.
    public var calls: [Call] { state.withLock { $0.calls } }
    /// Everything on the ride's stream so far, in order.
    public var history: [RideUpdate] { state.withLock { $0.history } }

    /// One account's client: the side it proves and asks as.
    public struct Side: RideService {
        let service: InMemoryRideService
        /// Whose account this is.
        public let side: BeaconSide

        public func submitProof(_ observation: TouchObservation, rideID: String) async -> ProofAnswer {
            service.submitProof(TouchProof(observation), by: side, rideID: rideID)
        }

        public func rideUpdates(_ rideID: String) -> AsyncStream<RideUpdate> { service.rideUpdates(rideID) }

        public func requestLocator(rideID: String) async -> LocatorAnswer { service.requestLocator(by: side, rideID: rideID) }

        public func answerLocator(rideID: String, sound: LocatorSoundName) async -> String? {
            service.answerLocator(by: side, rideID: rideID, sound: sound)
        }

        public func meetingMove(rideID: String, _ move: MeetingMove) async -> String? {
            service.meetingMove(by: side, rideID: rideID, move)
        }

        public func reportGuide(rideID: String, _ report: GuideReport) async -> String? {
            service.reportGuide(by: side, rideID: rideID, report)
        }

        public func confirmByRideWord(rideID: String, word: String) async -> ProofAnswer {
            service.confirmByRideWord(by: side, rideID: rideID, word: word)
        }

        public func askToCome(rideID: String) async -> ComeRequestAnswer { service.askToCome(by: side, rideID: rideID) }

        public func answerCome(rideID: String, _ answer: ComeAnswer) async -> String? {
            service.answerCome(by: side, rideID: rideID, answer)
        }

        public func reportPosition(rideID: String, _ fix: GeoFix) async -> PositionRefusal? {
            service.reportPosition(by: side, rideID: rideID, fix)
        }

        public func otherPartyPosition(rideID: String) async -> Result<GeoFix?, PositionRefusal> {
            service.otherPartyPosition(of: side, rideID: rideID)
        }
    }

    // MARK: The dispatcher's and the ride's own moves

    /// Moves the ride to `next` if its lifecycle allows (`RideLifecycle`) and tells the
    /// stream; returns whether it moved.
    @discardableResult
    public func move(to next: RideState) -> Bool {
        state.withLock { state -> Bool in
            guard RideLifecycle.canMove(from: state.rideState, to: next) else { return false }
            state.rideState = next
            if let update = Self.update(for: next) { Self.publish(update, in: &state) }
            return true
        }
    }

    private static func update(for state: RideState) -> RideUpdate? {
        switch state {
        case .arrived: .arrived
        case .confirmed: .confirmed
        case .completed: .completed
        case .cancelled: .cancelled
        case .requested, .accepted: nil
        }
    }

    // MARK: The rules

    private func submitProof(_ proof: TouchProof, by side: BeaconSide, rideID: String) -> ProofAnswer {
        let now = clock.unixTime
        return state.withLock { state -> ProofAnswer in
            let answer = checkedProof(proof, by: side, rideID: rideID, now: now, state: &state)
            state.calls.append(.proof(side, answer))
            return answer
        }
    }

    /// The server's checks in its order, then the mutual policy. Called with the lock held.
    private func checkedProof(_ proof: TouchProof, by side: BeaconSide, rideID: String, now: Double, state: inout State) -> ProofAnswer {
        guard rideID == self.rideID else { return .rejected("ride \(rideID) not found") }
        guard state.rideState == .arrived else {
            return .rejected("the ride is \(state.rideState.rawValue); touch proofs are taken only while it is arrived")
        }
        let checked: CheckedTouchProof
        do {
            checked = try TouchProofCheck.verify(proof, by: TouchSide(side), identity: identity, now: Date(timeIntervalSince1970: now))
        } catch {
            // The API's code in words ("wrong identity"), then its message.
            return .rejected("\(error.code.rawValue.replacingOccurrences(of: "_", with: " ")): \(error.field): \(error.message)")
        }
        let new = KeptTouchProof(side: TouchSide(side), slot: Int64(checked.slot), receivedAt: now,
                                 from: checked.from.timeIntervalSince1970, until: checked.until.timeIntervalSince1970)
        if TouchPairing.isResend(new, of: state.proofs) { return .rejected("replayed proof: adds nothing to an accepted one") }
        let outcome = TouchPairing.outcome(of: new, among: state.proofs)
        state.proofs.append(new)
        guard outcome == .confirmed else {
            Self.publish(.touchObserved(by: side, from: new.from, until: new.until), in: &state)
            return outcome == .awaitingCounterpart ? .awaitingCounterpart : .notSimultaneous
        }
        state.rideState = .confirmed
        Self.publish(.confirmed, in: &state)
        return .confirmed
    }

    private func requestLocator(by side: BeaconSide, rideID: String) -> LocatorAnswer {
        let now = clock.unixTime
        return state.withLock { state -> LocatorAnswer in
            let answer: LocatorAnswer
            if rideID != self.rideID || side != .passenger {
                answer = .refused("ride \(rideID) not found")
            } else if state.rideState != .arrived {
                answer = .refused("the ride is \(state.rideState.rawValue); the car sounds its locator only while it is arrived")
            } else if let retryAfter = RideLimits.locatorRetryAfter(last: state.lastLocatorRequest, now: now) {
                answer = .tooSoon(retryAfter: retryAfter)
            } else {
                state.lastLocatorRequest = now
                state.locatorRequests += 1
                Self.publish(.locatorRequested(unixTime: now), in: &state)
                answer = .ticking(seconds: Double(LocatorRule.soundSeconds))
            }
            state.calls.append(.locatorRequested(answer))
            return answer
        }
    }

    private func answerLocator(by side: BeaconSide, rideID: String, sound: LocatorSoundName) -> String? {
        meetingEvent(by: side, of: .driver, rideID: rideID, call: .locatorAnswered(sound),
                     update: .locatorAnswered(sound, unixTime: clock.unixTime)) { state in
            // One answer per request, as the server's store counts them.
            guard state.locatorAnswers < state.locatorRequests else { return "nothing to answer: every locator request has its answer" }
            state.locatorAnswers += 1
            return nil
        }
    }

    private func meetingMove(by side: BeaconSide, rideID: String, _ move: MeetingMove) -> String? {
        meetingEvent(by: side, of: move == .coming ? .driver : nil, rideID: rideID, call: .meeting(move),
                     update: .meeting(move, unixTime: clock.unixTime)) { state in
            // The server refuses a move the ride's history already has (`no_change`), then its cap.
            guard !state.saidMoves.contains(move) else { return "the ride's \(move.eventKind.rawValue) is said already; again changes nothing" }
            if let refusal = Self.spend(move.eventKind, limit: RideLimits.meetingMovesPerRide, in: &state) { return refusal }
            state.saidMoves.insert(move)
            return nil
        }
    }

    /// The server's order: the ride's passenger, the interval since the last request, the state,
    /// then the ride's cap.
    private func askToCome(by side: BeaconSide, rideID: String) -> ComeRequestAnswer {
        let now = clock.unixTime
        return state.withLock { state -> ComeRequestAnswer in
            let answer: ComeRequestAnswer
            if rideID != self.rideID || side != .passenger {
                answer = .refused("ride \(rideID) not found")
            } else if let retryAfter = RideLimits.comeRetryAfter(last: state.lastComeRequest, now: now) {
                answer = .tooSoon(retryAfter: retryAfter)
            } else if state.rideState != .arrived {
                answer = .refused("the ride is \(state.rideState.rawValue); it takes come requests only while arrived")
            } else if state.comeRequests >= RideLimits.comeRequestsPerRide {
                answer = .refused("this ride already has \(RideLimits.comeRequestsPerRide) come_requested events; it takes no more")
            } else {
                state.lastComeRequest = now
                state.comeRequests += 1
                Self.publish(.comeRequested(unixTime: now), in: &state)
                answer = .asked
            }
            state.calls.append(.comeRequested(answer))
            return answer
        }
    }

    private func answerCome(by side: BeaconSide, rideID: String, _ answer: ComeAnswer) -> String? {
        meetingEvent(by: side, of: .driver, rideID: rideID, call: .comeAnswered(answer),
                     update: .comeAnswered(answer, unixTime: clock.unixTime)) { state in
            // One answer of each kind per request, as the server's store counts them.
            let kind = answer.eventKind
            guard state.comeAnswers[kind, default: 0] < state.comeRequests else {
                return "nothing to answer: the passenger has no come request left without this answer"
            }
            state.comeAnswers[kind, default: 0] += 1
            return nil
        }
    }

    /// An event of the meeting at the kerb: only while arrived, only by `of` (nil: either side),
    /// then `rule`, which records what the event spends or says why it is refused.
    private func meetingEvent(by side: BeaconSide, of allowed: BeaconSide?, rideID: String, call: Call, update: RideUpdate,
                              rule: (inout State) -> String?) -> String? {
        state.withLock { state -> String? in
            let refusal: String? = if rideID != self.rideID { "ride \(rideID) not found" }
                else if let allowed, side != allowed { "only the \(allowed.rawValue) may do that" }
                else if state.rideState != .arrived { "the ride is \(state.rideState.rawValue), not arrived" }
                else { rule(&state) }
            if let refusal {
                state.calls.append(.refused(refusal))
                return refusal
            }
            state.calls.append(call)
            Self.publish(update, in: &state)
            return nil
        }
    }

    /// The server's rules for guide reports: the ride's passenger only; `started` while arrived,
    /// `stopped` while arrived or confirmed; never the same as the last one (`no_change`); each
    /// up to its cap.
    private func reportGuide(by side: BeaconSide, rideID: String, _ report: GuideReport) -> String? {
        state.withLock { state -> String? in
            let states: Set<RideState> = report == .started ? [.arrived] : [.arrived, .confirmed]
            let refusal: String? = if rideID != self.rideID || side != .passenger { "the guide reports only on its own ride" }
                else if !states.contains(state.rideState) { "the ride is \(state.rideState.rawValue); the guide cannot report \(report.rawValue)" }
                else if state.lastGuideReport == report { "the guide's last report is \(report.rawValue) already; again changes nothing" }
                else { Self.spend(report.eventKind, limit: RideLimits.guideReportsPerRide, in: &state) }
            if let refusal {
                state.calls.append(.refused(refusal))
                return refusal
            }
            state.lastGuideReport = report
            state.calls.append(.guide(report))
            return nil
        }
    }

    private func confirmByRideWord(by side: BeaconSide, rideID: String, word: String) -> ProofAnswer {
        state.withLock { state -> ProofAnswer in
            let answer: ProofAnswer
            if rideID != self.rideID || side != .passenger {
                answer = .rejected("ride \(rideID) not found")
            } else if state.rideState != .arrived {
                answer = .rejected("the ride is \(state.rideState.rawValue)")
            } else if state.rideWordAttempts >= RideLimits.rideWordAttemptsPerRide {
                answer = .rejected("this ride's word was tried \(RideLimits.rideWordAttemptsPerRide) times and no longer confirms it")
            } else {
                // Every word tried counts, the right one too, as the server counts it before comparing.
                state.rideWordAttempts += 1
                if let rideWord, Self.normalized(word) == Self.normalized(rideWord) {
                    state.rideState = .confirmed
                    Self.publish(.confirmed, in: &state)
                    answer = .confirmed
                } else {
                    answer = .rejected("that is not this ride's word")
                }
            }
            state.calls.append(.rideWord(word, answer))
            return answer
        }
    }

    /// The server's rules for positions: the ride's own parties, while accepted or arrived
    /// (then deleted), about one a second per side.
    private func reportPosition(by side: BeaconSide, rideID: String, _ fix: GeoFix) -> PositionRefusal? {
        let now = clock.now
        return state.withLock { state -> PositionRefusal? in
            guard rideID == self.rideID else { return .refused("ride \(rideID) not found") }
            guard state.rideState == .accepted || state.rideState == .arrived else {
                state.positions = [:]
                return .rideOver("the ride is \(state.rideState.rawValue); positions are kept only while it is accepted or arrived")
            }
            if let last = state.positions[side], now - last.keptAt < Self.positionInterval {
                return .tooSoon(retryAfter: Self.positionInterval - (now - last.keptAt))
            }
            state.positions[side] = (fix, now)
            state.calls.append(.position(side, fix))
            return nil
        }
    }

    private func otherPartyPosition(of side: BeaconSide, rideID: String) -> Result<GeoFix?, PositionRefusal> {
        state.withLock { state -> Result<GeoFix?, PositionRefusal> in
            guard rideID == self.rideID else { return .failure(.refused("ride \(rideID) not found")) }
            guard state.rideState == .accepted || state.rideState == .arrived else {
                state.positions = [:]
                return .failure(.rideOver("the ride is \(state.rideState.rawValue)"))
            }
            return .success(state.positions[side == .driver ? .passenger : .driver]?.fix)
        }
    }

    /// Each side's latest kept fix.
    public func position(of side: BeaconSide) -> GeoFix? { state.withLock { $0.positions[side]?.fix } }

    /// Counts one more event of `kind`; the refusal when the ride already has `limit` of them.
    private static func spend(_ kind: RideEventKind, limit: Int, in state: inout State) -> String? {
        let taken = state.eventCounts[kind, default: 0]
        guard taken < limit else { return "this ride already has \(limit) \(kind.rawValue) events" }
        state.eventCounts[kind] = taken + 1
        return nil
    }

    private static func normalized(_ word: String) -> String {
        word.lowercased().split(whereSeparator: { !$0.isLetter }).joined(separator: " ")
    }

    /// Calls `observer` with every update from now on, as it is published and before any
    /// follower sees it (a test's record of what happened, in order); with the service's lock
    /// held, so it must not call the service.
    public func observe(_ observer: @escaping @Sendable (RideUpdate) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    // MARK: The stream

    private func rideUpdates(_ rideID: String) -> AsyncStream<RideUpdate> {
        let (stream, continuation) = AsyncStream<RideUpdate>.makeStream()
        guard rideID == self.rideID else {
            continuation.yield(.failed("ride \(rideID) not found"))
            continuation.finish()
            return stream
        }
        state.withLock { state in
            // Connected, then the history (as the server's stream replays it), then live.
            continuation.yield(.reachable(true))
            for update in state.history { continuation.yield(update) }
            state.nextFollower += 1
            let id = state.nextFollower
            state.followers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.followers.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// Appends to the history and tells every follower. Called with the lock held (an
    /// AsyncStream's yield does not call back into the service).
    private static func publish(_ update: RideUpdate, in state: inout State) {
        state.history.append(update)
        for observer in state.observers { observer(update) }
        for follower in state.followers.values { follower.yield(update) }
    }
}
