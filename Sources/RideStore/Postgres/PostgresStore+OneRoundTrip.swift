import Foundation
import PostgresNIO
import RideRules

/// The statements that call the transitions, prepared once per connection: each a `CALL` of a
/// procedure (TransitionProcedures) that runs the transition function (TransitionFunctions) and
/// commits before it answers; request, accept and the moves call one body that does both
/// (FoldedTransitions), and sequences its own event when it can (SelfSequencingTransitions).
/// Each is one round trip; the write's sequencing run, when it needs one, is another, shared by
/// every write that finishes while it is queued (EventSequencing).
enum TransitionSQL {
    enum CreateRequest: PreparedSQL { static let sql = FoldedTransitions.createRequestCall }
    enum CancelRequest: PreparedSQL { static let sql = FoldedTransitions.cancelRequestCall }
    enum Accept: PreparedSQL { static let sql = FoldedTransitions.acceptCall }
    enum MoveRide: PreparedSQL { static let sql = FoldedTransitions.moveCall }
    enum TouchProof: PreparedSQL { static let sql = FoldedTransitions.touchProofCall }
    enum RequestLocator: PreparedSQL { static let sql = call("rb_request_locator_4", arguments: 5, outs: SequencedEventAnswer.outs) }
    enum SequenceEvents: PreparedSQL { static let sql = "CALL rb_sequence_events_3($1)" }
    enum RecordNote: PreparedSQL { static let sql = call("rb_record_note_7", arguments: 15, outs: SequencedEventAnswer.outs) }

    /// `CALL name($1, …, $n, NULL × outs)`: the IN arguments, then a NULL per OUT argument
    /// (PostgreSQL 14 and later take the OUT ones in a CALL).
    static func call(_ name: String, arguments n: Int, outs: Int) -> String {
        "CALL \(name)(" + ((1...n).map { "$\($0)" } + Array(repeating: "NULL", count: outs)).joined(separator: ", ") + ")"
    }
}

/// A transition procedure's answer (`outcome_`, `info_`, `result_`, `sequenced_`: the `_9`
/// procedures of SelfSequencingTransitions, which every transition calls).
struct TransitionAnswer: Sendable {
    var outcome: String
    var info: String?
    var result: Data?
    /// The transition's own transaction moved its event into the history: no run is needed.
    /// (NULL when the procedure answered before that step: a touch proof's early answers.)
    var sequenced: Bool

    init(row: PostgresRow) throws {
        let sequenced: Bool?
        (outcome, info, result, sequenced) = try row.decode((String, String?, Data?, Bool?).self)
        self.sequenced = sequenced ?? false
    }
}

/// The answer of a procedure that writes an event and sequences it in the same CALL (the
/// locator, a ride note: TransitionProcedures.v4): the outcome, then on 'ok' the event.
struct SequencedEventAnswer: Sendable {
    var outcome: String
    var info: String?
    var at: Date?
    var event: RideEvent?

    init(row: PostgresRow) throws {
        let (outcome, info, at, id, request, ride, sequence, kind, state, actor, eventAt, detail) =
            try row.decode((String, String?, Date?, Int64?, String?, String?, Int?, String?, String?, String?, Date?, String?).self)
        (self.outcome, self.info, self.at) = (outcome, info, at)
        if let id, let request, let sequence, let kind, let state, let actor, let eventAt {
            event = RideEvent(id: id, requestID: request, rideID: ride, sequence: sequence, kind: RideEventKind(rawValue: kind),
                              state: try stored(state), actorID: actor, at: eventAt.wholeMilliseconds, detail: detail)
        }
    }

    /// The procedures' OUT arguments: the outcome, info, time, then the event's nine.
    static let outs = 12

    /// The event of an 'ok' answer.
    func recorded() throws -> RideEvent {
        guard let event else { throw StoreError.unavailable("the event just written is not in the history") }
        return event
    }
}

extension PostgresStore {
    /// Decodes results the functions wrote (dates as seconds since 2001, from timestamptz) and
    /// those `JSONEncoder` wrote: both to whole milliseconds, as the store's rows are read.
    static func decodeResult<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            Date(timeIntervalSinceReferenceDate: try decoder.singleValueContainer().decode(Double.self)).wholeMilliseconds
        }
        return try decoder.decode(T.self, from: data)
    }

    /// One CALL of a procedure that writes an event and sequences it itself (the locator, a
    /// ride note: TransitionProcedures.v4). On 'ok' the event is in the history, so this
    /// server's event hubs are told, as after `sequenced`.
    func callSequencedEvent<SQL>(_ what: String, _ prepared: Prepared<SQL>) async throws -> SequencedEventAnswer {
        let answer = try await mapped { try await self.db.rows(prepared, logger: self.logger, SequencedEventAnswer.init(row:)).first }
        guard let answer else { throw StoreError.unavailable("the \(what) procedure answered nothing") }
        // A replay may have run the sequencing its first attempt's writer did not get to.
        if answer.outcome == "ok" || answer.outcome == "replay" { commits.announce(.eventsAppended) }
        return answer
    }

    /// One call of a transition, one round trip: the procedure has committed (durably) before
    /// its row arrives (TransitionProcedures says why not a lone function call, nor BEGIN …
    /// COMMIT around it). A keyed write racing the same key's first attempt loses on the key's
    /// primary key (the statement, so its whole transaction, rolls back) and is asked once
    /// more, when it finds the winner's result.
    func callTransition<SQL>(_ key: IdempotencyScope?, _ statement: @escaping @Sendable () throws -> Prepared<SQL>) async throws -> TransitionAnswer {
        for attempt in 0..<2 {
            do {
                let prepared = try statement()
                let rows = try await mapped { try await self.db.rows(prepared, logger: self.logger, TransitionAnswer.init(row:)) }
                guard let answer = rows.first else { throw StoreError.unavailable("the transition function answered nothing") }
                if answer.outcome == "key-reused" { throw StoreError.idempotencyKeyReused(key?.key ?? "") }
                return answer
            } catch let error as PSQLError where attempt == 0 && error.serverInfo?[.sqlState] == "23505" && key != nil {
                continue
            }
        }
        throw StoreError.unavailable("idempotency key \(key?.key ?? "") could not be settled")
    }

    /// One transition: its CALL (`callTransition`), its answer read by `decode`, and a
    /// sequencing run only when the procedure did not sequence its event itself
    /// (SelfSequencingTransitions); a refusal `decode` throws starts none, as before.
    func sequencedTransition<SQL, T: Sendable>(_ key: IdempotencyScope?, _ statement: @escaping @Sendable () throws -> Prepared<SQL>,
                                              decode: (TransitionAnswer) throws -> T) async throws -> T {
        let answer = try await callTransition(key, statement)
        let value = try decode(answer)
        guard answer.sequenced else { return try await sequenced { value } }
        commits.announce(.eventsAppended)
        return value
    }

    /// The answer's result, or the error its outcome stands for.
    func result<T: Decodable>(_ answer: TransitionAnswer, as type: T.Type, notFound: String, to target: RideState,
                              busy role: Role? = nil, taken: String = "") throws -> T {
        switch answer.outcome {
        case "ok", "replay":
            guard let data = answer.result else { throw StoreError.unavailable("the transition function answered no result") }
            return try Self.decodeResult(T.self, from: data)
        case "not-found": throw StoreError.notFound(notFound)
        case "illegal": throw StoreError.illegalTransition(from: try stored(answer.info ?? ""), to: target)
        case "busy": throw StoreError.busy(role: role ?? .passenger, existingID: answer.info ?? "")
        case "taken": throw StoreError.alreadyTaken(taken)
        case "no-code": throw StoreError.unavailable("no free short ride code; too many active rides")
        default: throw StoreError.unavailable("the transition function answered '\(answer.outcome)'")
        }
    }

    func createRideRequestInOneTrip(_ new: NewRideRequest, passengerID: String, rule: BookingRule, idempotency key: IdempotencyScope?) async throws -> RideRequestRecord {
        let id = StoreID.make(), now = Date.storeNow
        // 64 candidates, as the Swift loop tried at most: taken ones are skipped in the function.
        let codes = (0..<64).map { _ in ShortCode.random() }
        return try await sequencedTransition(key) {
            try Prepared<TransitionSQL.CreateRequest>(key?.accountID, key?.key, "create-request", id, passengerID, new.passengerName, new.pickup,
                                                     new.dropoff, new.accessibilityNotes, now, rule == .oneRideAtATime, codes, Self.eventChannel)
        } decode: {
            try result($0, as: RideRequestRecord.self, notFound: "account \(passengerID)", to: .requested, busy: .passenger)
        }
    }

    func cancelRideRequestInOneTrip(id: String, by actorID: String, reason: String?, idempotency key: IdempotencyScope?) async throws -> RideRequestRecord {
        let now = Date.storeNow
        return try await sequencedTransition(key) {
            try Prepared<TransitionSQL.CancelRequest>(key?.accountID, key?.key, "cancel-request:\(id)", id, actorID, reason, now, Self.eventChannel)
        } decode: {
            try result($0, as: RideRequestRecord.self, notFound: "ride request \(id)", to: .cancelled)
        }
    }

    func acceptInOneTrip(requestID: String, driverID: String, rideKey: Data, rule: BookingRule, assignedBy: String?,
                         idempotency key: IdempotencyScope?) async throws -> RideRecord {
        let rideID = StoreID.make(), now = Date.storeNow
        return try await sequencedTransition(key) {
            try Prepared<TransitionSQL.Accept>(key?.accountID, key?.key, "accept:\(requestID)", requestID, driverID, rideID, rideKey,
                                              rule == .oneRideAtATime, assignedBy ?? driverID, assignedBy == nil ? nil : "assigned by a dispatcher", now,
                                              Self.eventChannel)
        } decode: {
            try result($0, as: RideRecord.self, notFound: "ride request \(requestID)", to: .accepted, busy: .driver, taken: requestID)
        }
    }

    func transitionInOneTrip(rideID: String, to state: RideState, by actorID: String, detail: String?, idempotency key: IdempotencyScope?) async throws -> RideRecord {
        let movableFrom = RideLifecycle.states(movingTo: state).map(\.rawValue)
        let now = Date.storeNow
        return try await sequencedTransition(key) {
            try Prepared<TransitionSQL.MoveRide>(key?.accountID, key?.key, "\(state.rawValue):\(rideID)", rideID, state.rawValue, movableFrom,
                                                actorID, detail, now, Self.eventChannel)
        } decode: {
            try result($0, as: RideRecord.self, notFound: "ride \(rideID)", to: state)
        }
    }

    func recordTouchProofInOneTrip(_ proof: VerifiedTouchProof, policy: TouchPolicy, idempotency key: IdempotencyScope?) async throws -> TouchProofRecording {
        // See the SQLite store's `counterpartProofs`: the passenger policy decides by side alone.
        let mode = policy == .mutual ? "mutual" : proof.side == .passenger ? "confirm" : "none"
        // The pairing's bounds (RideRules' `TouchPairing`), which rb_touch_proof_7's SQL filters on.
        let (earliest, latest) = TouchPairing.receiptBounds(around: proof.receivedAt)
        let (fromBound, untilBound) = TouchPairing.windowBounds(from: proof.observedFrom, until: proof.observedUntil)
        let now = Date.storeNow
        return try await sequencedTransition(key) {
            try Prepared<TransitionSQL.TouchProof>(
                key?.accountID, key?.key, "touch-proof:\(proof.rideID)", proof.rideID, proof.side.rawValue, proof.accountID, proof.slot,
                proof.uuid.uuidString, proof.major, proof.minor, proof.peakRssiDbm, proof.samples, proof.observedAt, proof.receivedAt,
                proof.observedFrom, proof.observedUntil, mode, proof.side.counterpart.rawValue, earliest, latest, fromBound, untilBound,
                proof.touchObserved.detail, TouchProofRules.confirmationDetail(policy), now, proof.resentSince, Self.eventChannel)
        } decode: { answer in
            if answer.outcome == "proof-replayed" {
                throw StoreError.replayed("the \(proof.side.rawValue)'s proof for slot \(proof.slot) observed at \(proof.observedAt) was already used")
            }
            if answer.outcome == "proof-resent" { throw StoreError.replayed(proof.resentRefusal) }
            return try result(answer, as: TouchProofRecording.self, notFound: "ride \(proof.rideID)", to: .confirmed)
        }
    }

    func requestLocatorInOneTrip(rideID: String, by actorID: String, at now: Date, minimumInterval: Double) async throws -> LocatorRecording {
        let at = now.wholeMillisecondsDown
        let answer = try await callSequencedEvent("locator", try Prepared<TransitionSQL.RequestLocator>(
            rideID, actorID, at, minimumInterval, Self.eventChannel))
        switch answer.outcome {
        case "ok": return .recorded(try answer.recorded())
        case "not-found": throw StoreError.notFound("ride \(rideID)")
        case "illegal": return .wrongState(try stored(answer.info ?? ""))
        case "too-soon":
            let last = answer.at ?? at
            return .tooSoon(last: last, retryAfter: minimumInterval - at.timeIntervalSince(last))
        default: throw StoreError.unavailable("the locator procedure answered '\(answer.outcome)'")
        }
    }
}
