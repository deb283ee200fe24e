import Foundation

/// A client's `Idempotency-Key`, scoped to its account, that makes a write safe to retry: the
/// first result is stored with the write, in the same transaction, and returned again for every retry.
public struct IdempotencyScope: Sendable, Hashable {
    public var accountID: String
    public var key: String

    public init(accountID: String, key: String) {
        self.accountID = accountID
        self.key = key
    }
}

/// A token just added, and whether it came from this call or from an earlier call with the
/// same idempotency key (the caller then no longer holds that token's secret).
public struct TokenIssue: Sendable, Equatable {
    public var token: APIToken
    public var isReplay: Bool
}

/// Everything the ride server keeps. Implementations: SQLite (GRDB) and PostgreSQL (PostgresNIO);
/// one contract test suite runs against both. Each capability is its own protocol
/// (StoreCapabilities.swift), so a route collection holds only what it uses.
public protocol Store: StoreLifecycle, AccountStore, RideRequestStore, RideLifecycleStore, PlaceStore, KerbStore,
    RetentionStore, RideHistoryStore, StoreNotifications {}

extension StoreNotifications {
    public func sequenceEvents() async throws {}
}

/// What `listenForAppendedEvents` hears from any process on the same database.
public enum CrossProcessNotice: Sendable, Equatable {
    /// An event was appended and sequenced with this id.
    case eventAppended(id: Int64)
    /// Some process revoked tokens: open streams and cached authentications must re-check theirs.
    case tokensRevoked
}

extension AccountStore {
    public func createAccount(_ new: NewAccount) async throws -> Account {
        try await createAccount(new, idempotency: nil)
    }

    public func addToken(accountID: String, secretHash: Data, expiresAt: Date? = nil) async throws -> APIToken {
        try await addToken(accountID: accountID, secretHash: secretHash, expiresAt: expiresAt, idempotency: nil).token
    }

    public func revokeTokens(accountID: String) async throws -> Int {
        try await revokeTokens(accountID: accountID, idempotency: nil)
    }

    public func addSignInCode(_ code: SignInCodeRecord, codeHash: Data, perDay: Int) async throws -> SignInCodeRecord {
        try await addSignInCode(code, codeHash: codeHash, perDay: perDay, perIssuerPerDay: .max)
    }

    public func redeemSignInCode(codeHash: Data, tokenSecretHash: Data, tokenExpiresAt: Date?, now: Date) async throws -> SignIn {
        try await redeemSignInCode(codeHash: codeHash, tokenSecretHash: tokenSecretHash, tokenExpiresAt: tokenExpiresAt, now: now, admit: { _ in })
    }
}

extension RideRequestStore {
    /// Unrestricted: tools and tests that build many rides for one account.
    public func createRideRequest(_ new: NewRideRequest, passengerID: String, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await createRideRequest(new, passengerID: passengerID, rule: .unrestricted, idempotency: idempotency)
    }

    public func cancelRideRequest(id: String, by actorID: String, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await cancelRideRequest(id: id, by: actorID, reason: nil, idempotency: idempotency)
    }

    public func openRideRequests(limit: Int) async throws -> [RideRequestRecord] {
        try await openRideRequests(limit: limit, after: nil)
    }

    /// Every request of one passenger (tests and tools; the API pages).
    public func rideRequests(passengerID: String) async throws -> [RideRequestRecord] {
        try await rideRequests(passengerID: passengerID, limit: .max, after: nil)
    }
}

extension RideLifecycleStore {
    /// Unrestricted: tools and tests that build many rides for one driver.
    public func accept(requestID: String, driverID: String, rideKey: Data, idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await accept(requestID: requestID, driverID: driverID, rideKey: rideKey, rule: .unrestricted, assignedBy: nil, idempotency: idempotency)
    }

    /// The driver's own acceptance.
    public func accept(requestID: String, driverID: String, rideKey: Data, rule: BookingRule, idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await accept(requestID: requestID, driverID: driverID, rideKey: rideKey, rule: rule, assignedBy: nil, idempotency: idempotency)
    }

    public func rides(_ filter: RideFilter) async throws -> [RideRecord] {
        try await rideDetails(filter).map(\.ride)
    }
}

/// Opens the store a `--database` value names: `sqlite:PATH` or `postgres://user:pass@host:port/db`.
public enum StoreLocation {
    public static let defaultValue = "sqlite:./ridebeacon.sqlite"

    /// - Parameters:
    ///   - operationTimeout: PostgreSQL's per-operation deadline (`PostgresStore`).
    ///   - connections: PostgreSQL connections kept open (`ConnectionPools`).
    public static func open(_ location: String, operationTimeout: Duration = .seconds(5), connections: Int = 4) async throws -> any Store {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            let store = try PostgresStore(url: location, operationTimeout: operationTimeout, connections: connections)
            do {
                try await store.migrate()
            } catch {
                await store.close()
                throw error
            }
            return store
        }
        guard location.hasPrefix("sqlite:") else {
            throw StoreError.invalid("database must be sqlite:PATH or postgres://user:password@host:port/database, not '\(location)'")
        }
        let path = String(location.dropFirst("sqlite:".count))
        guard !path.isEmpty else { throw StoreError.invalid("sqlite: needs a file path, e.g. sqlite:./ridebeacon.sqlite") }
        return try SQLiteStore(path: path)
    }
}

/// An event that changes no state, for `recordRideNote`.
public struct RideNote: Sendable, Equatable {
    public var rideID: String
    public var kind: RideEventKind
    public var actorID: String
    public var at: Date
    public var detail: String?
    /// The states the ride may be in.
    public var states: Set<RideState>
    /// An event of this kind must already be in the ride's history (an answer needs its request).
    public var requiresEarlier: RideEventKind?
    /// With an Idempotency-Key: what else of the request the key's answer is for, beyond the
    /// ride, kind and detail (a message's preset, so a preset and the same sentence typed out
    /// are two requests).
    public var keyedRequest: String?
    /// At most this many events of `kind` in the ride's history (`limitReached`): a client
    /// cannot grow the history every reader pays for (issue 36).
    public var perRideLimit: Int?
    /// A repeat that changes nothing is refused (`unchanged`): the ride's newest event among
    /// these kinds is already of `kind` (the guide started twice, the car across twice).
    public var unchangedAmong: Set<RideEventKind> = []
    /// An answer: at most as many events of `kind` as of `requiresEarlier` (`nothingToAnswer`
    /// once every request has its answer).
    public var answersOnePerRequest = false

    public init(rideID: String, kind: RideEventKind, actorID: String, at: Date, detail: String?,
                states: Set<RideState> = [.arrived], requiresEarlier: RideEventKind? = nil) {
        self.rideID = rideID
        self.kind = kind
        self.actorID = actorID
        self.at = at
        self.detail = detail
        self.states = states
        self.requiresEarlier = requiresEarlier
    }
}

/// What `recordRideNote` did.
public enum RideNoteRecording: Sendable, Equatable {
    case recorded(RideEvent)
    /// Refused: the ride is in this state.
    case wrongState(RideState)
    /// Refused: the history holds no event of `requiresEarlier`'s kind (with
    /// `answersOnePerRequest`: none left unanswered).
    case nothingToAnswer
    /// Refused: the ride's history already holds `perRideLimit` events of this kind.
    case limitReached(Int)
    /// Refused: the newest event among `unchangedAmong` is already of this kind.
    case unchanged
}

/// What a keyed `recordRideNote` did: the recording, and whether it is a replay of the key's
/// first answer (nothing was written now).
public struct KeyedRideNoteRecording: Sendable, Equatable {
    public var recording: RideNoteRecording
    public var isReplay: Bool

    public init(_ recording: RideNoteRecording, isReplay: Bool = false) {
        self.recording = recording
        self.isReplay = isReplay
    }
}

extension RideNote {
    /// What a keyed note's stored answer is for: the same key with any other note (another
    /// ride, kind, `keyedRequest` or text) is `idempotencyKeyReused`. Its detail is the note's own text, so the
    /// idempotency row is a copy of it, deleted with the row (retention, `purgeLocations`).
    var idempotencyOperation: String { "note:\(kind.rawValue):\(rideID):\(keyedRequest ?? ""):\(detail ?? "")" }
}

extension KerbStore {
    /// `recordRideNote` without an Idempotency-Key.
    public func recordRideNote(_ note: RideNote) async throws -> RideNoteRecording {
        try await recordRideNote(note, idempotency: nil).recording
    }
}

/// What `recordPosition` did.
public enum PositionRecording: Sendable, Equatable {
    /// Kept as the party's latest.
    case recorded
    /// Refused: the ride is in this state, not `accepted` or `arrived`.
    case wrongState(RideState)
}

extension KerbStore {
    /// Both parties' latest positions, exact (the API coarsens them for dispatchers).
    public func positions(rideID: String) async throws -> RidePositions {
        RidePositions(passenger: try await position(rideID: rideID, party: .passenger),
                      driver: try await position(rideID: rideID, party: .driver))
    }
}

/// The states in which a ride's parties report their positions.
public enum PositionRules {
    public static let states: Set<RideState> = [.accepted, .arrived]
}

/// What `requestLocator` did.
public enum LocatorRecording: Sendable, Equatable {
    /// The event was appended.
    case recorded(RideEvent)
    /// Refused: the ride is in this state, not `arrived`.
    case wrongState(RideState)
    /// Refused: the last request was made at `last`; the next may come `retryAfter` seconds from now.
    case tooSoon(last: Date, retryAfter: Double)
}
