/// Why a store operation changed nothing. Each case maps to one HTTP status in the server.
public enum StoreError: Error, Equatable, Sendable {
    case notFound(String)
    /// An illegal transition; carries the state the ride is really in.
    case illegalTransition(from: RideState, to: RideState)
    /// Someone else got there first (a second driver accepting one request).
    case alreadyTaken(String)
    /// The same idempotency key was used before for a different operation.
    case idempotencyKeyReused(String)
    /// The same touch proof was recorded before.
    case replayed(String)
    case invalid(String)
    /// The database cannot be reached; the caller may retry.
    case unavailable(String)
}
