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
    /// One ride at a time: the passenger already holds an open request or active ride, or the
    /// driver a ride that occupies him (accepted, arrived or confirmed); `existingID` is that request's or ride's id.
    case busy(role: Role, existingID: String)
    /// A sign-in code was refused (unknown, expired or used).
    case signInRefused(SignInRefusal)
    /// Too many of something in a window (sign-in codes issued for one account in a day).
    case limitReached(String)
    /// The database cannot be reached; the caller may retry.
    case unavailable(String)
}
