import Foundation

/// A client-chosen key that makes a write safe to retry: the first result is stored with the
/// write, in the same transaction, and returned again for every retry.
public struct IdempotencyKey: Sendable, Hashable {
    public var accountID: String
    public var key: String

    public init(accountID: String, key: String) {
        self.accountID = accountID
        self.key = key
    }
}

/// Everything the ride server keeps. Implementations: SQLite (GRDB) and PostgreSQL (PostgresNIO);
/// one contract test suite runs against both.
public protocol Store: Sendable {
    // Accounts and tokens
    func createAccount(_ new: NewAccount) async throws -> Account
    func account(id: String) async throws -> Account?
    func accounts() async throws -> [Account]
    func addToken(accountID: String, secretHash: Data) async throws -> APIToken
    /// The account a token secret's hash belongs to, unless the token was revoked.
    func authenticate(secretHash: Data) async throws -> Account?
    func revokeTokens(accountID: String) async throws -> Int

    // Requests
    func createRideRequest(_ new: NewRideRequest, passengerID: String, idempotency: IdempotencyKey?) async throws -> RideRequest
    func rideRequest(id: String) async throws -> RideRequest?
    func openRideRequests(limit: Int) async throws -> [RideRequest]
    func rideRequests(passengerID: String) async throws -> [RideRequest]
    func cancelRideRequest(id: String, by actorID: String, idempotency: IdempotencyKey?) async throws -> RideRequest

    // Rides
    /// Atomic: of several drivers accepting one open request, exactly one gets the ride.
    func accept(requestID: String, driverID: String, rideKey: Data, idempotency: IdempotencyKey?) async throws -> Ride
    func transition(rideID: String, to state: RideState, by actorID: String, detail: String?, idempotency: IdempotencyKey?) async throws -> Ride
    func ride(id: String) async throws -> Ride?
    func rides(_ filter: RideFilter) async throws -> [Ride]

    // History
    func events(rideID: String, after id: Int64) async throws -> [RideEvent]
    /// Events of every ride after `id`, oldest first (dispatchers' live view).
    func events(after id: Int64, limit: Int) async throws -> [RideEvent]
}
