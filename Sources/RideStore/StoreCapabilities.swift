import Foundation

// The store's capabilities, one protocol each: a route collection holds the ones it uses
// (`Store` is all of them, what the two implementations conform to).

/// Opening and closing the database.
public protocol StoreLifecycle: Sendable {
    /// Brings the schema up to date; safe to call from several processes at once.
    func migrate() async throws
    /// Throws `StoreError.unavailable` unless the database answers a trivial query.
    func ping() async throws
    /// Releases connections; the store is unusable afterwards.
    func close() async
}

/// Accounts, their tokens, sign-in codes and language: what authentication and the account routes need.
public protocol AccountStore: Sendable {
    // Accounts and tokens
    func createAccount(_ new: NewAccount, idempotency: IdempotencyScope?) async throws -> Account
    func account(id: String) async throws -> Account?
    func accounts() async throws -> [Account]
    /// `expiresAt` nil: the token works until revoked.
    func addToken(accountID: String, secretHash: Data, expiresAt: Date?, idempotency: IdempotencyScope?) async throws -> TokenIssue
    /// The account a token secret's hash belongs to, unless the token was revoked or has expired.
    func authenticate(secretHash: Data) async throws -> Account?
    /// Revokes every token of the account and ends its unused sign-in codes (they expire now),
    /// so no credential issued before the revocation still signs in.
    func revokeTokens(accountID: String, idempotency: IdempotencyScope?) async throws -> Int
    /// The stored token a secret's hash belongs to, revoked or not (open streams re-check it).
    func token(secretHash: Data) async throws -> APIToken?

    // Sign-in codes
    /// Stores a new code's hash; `limitReached` when `perDay` codes were already issued for
    /// the account, or `perIssuerPerDay` by `code.issuedBy`, in the last 24 hours; `notFound`
    /// for an unknown account.
    func addSignInCode(_ code: SignInCodeRecord, codeHash: Data, perDay: Int, perIssuerPerDay: Int) async throws -> SignInCodeRecord
    /// Marks the code used and adds a token for its account, in one transaction; throws
    /// `signInRefused` (unknown, expired or used) and then writes nothing. `admit` sees the
    /// code's account before anything is written: what it throws is rethrown and the code stays
    /// unspent (the passenger page refusing a driver's code, the per-account sign-in limit).
    func redeemSignInCode(codeHash: Data, tokenSecretHash: Data, tokenExpiresAt: Date?, now: Date,
                          admit: @escaping @Sendable (Account) throws -> Void) async throws -> SignIn
    /// Moves an unrevoked, unexpired token's expiry to `expiresAt` (a web session's sliding
    /// expiry); false when the token is revoked, expired at `now`, or never expires.
    func extendToken(id: String, expiresAt: Date, now: Date) async throws -> Bool
    /// The account's tokens, newest first, revoked ones too.
    func tokens(accountID: String) async throws -> [APIToken]
    /// Revokes one of the account's tokens; `notFound` when it is not the account's.
    func revokeToken(id: String, accountID: String) async throws -> APIToken
    /// Names the device one of the account's tokens is on (given at sign-in); `notFound` when
    /// the token is not the account's.
    func nameTokenDevice(id: String, accountID: String, deviceName: String) async throws

    // Language
    /// The language the account chose for what the service writes to it ("es"); nil: none.
    func accountLanguage(accountID: String) async throws -> String?
    /// Keeps (nil: forgets) the account's language; `notFound` for an unknown account.
    func setAccountLanguage(accountID: String, language: String?) async throws
}

/// Ride requests, before and without a driver.
public protocol RideRequestStore: Sendable {
    /// Also starts the request's history with a `requested` event (no ride id yet), and gives
    /// it a short code free among open requests and active rides. Under `.oneRideAtATime`
    /// throws `busy(role: .passenger, …)` when the passenger already holds an open request or
    /// an active ride.
    func createRideRequest(_ new: NewRideRequest, passengerID: String, rule: BookingRule, idempotency: IdempotencyScope?) async throws -> RideRequestRecord
    /// The request with this short code (canonical form): the open or active one when there is
    /// one, else the newest that had it.
    func rideRequest(code: String) async throws -> RideRequestRecord?
    func rideRequest(id: String) async throws -> RideRequestRecord?
    /// Oldest first, keyset-paged like rides: `after` is a request id; one that names no request yields an empty page.
    func openRideRequests(limit: Int, after: String?) async throws -> [RideRequestRecord]
    /// One passenger's requests, any status, oldest first, paged like `openRideRequests`.
    func rideRequests(passengerID: String, limit: Int, after: String?) async throws -> [RideRequestRecord]
    /// Appends a `cancelled` event (no ride id, `reason` as its detail) to the request's history.
    func cancelRideRequest(id: String, by actorID: String, reason: String?, idempotency: IdempotencyScope?) async throws -> RideRequestRecord
}

/// Rides: acceptance, their state changes and their read models.
public protocol RideLifecycleStore: Sendable {
    /// Atomic: of several drivers accepting one open request, exactly one gets the ride. The
    /// driver who already holds the request's active ride gets it back unchanged. Under
    /// `.oneRideAtATime` throws `busy(role: .driver, …)` when the driver holds another
    /// ride that occupies him (`RideState.occupiesDriver`: accepted, arrived or confirmed).
    /// `assignedBy`: a dispatcher who gave the request to this driver (the event's actor, with
    /// "assigned by a dispatcher" as its detail).
    func accept(requestID: String, driverID: String, rideKey: Data, rule: BookingRule, assignedBy: String?,
                idempotency: IdempotencyScope?) async throws -> RideRecord
    /// The driver's estimate of minutes to the pickup, on an `accepted` ride (else
    /// `illegalTransition(from: state, to: .accepted)`); appends an `accepted` event whose
    /// detail says the ETA, so the passenger's stream hears it.
    func setETA(rideID: String, minutes: Int, by driverID: String, idempotency: IdempotencyScope?) async throws -> RideRecord
    func transition(rideID: String, to state: RideState, by actorID: String, detail: String?, idempotency: IdempotencyScope?) async throws -> RideRecord
    func ride(id: String) async throws -> RideRecord?
    /// The ride with its passenger's and driver's names and the driver's vehicle.
    func rideDetail(id: String) async throws -> RideDetail?
    /// Rides with their people, oldest first, keyset-paged; an `after` id that names no ride
    /// yields an empty page.
    func rideDetails(_ filter: RideFilter) async throws -> [RideDetail]
    /// How many rides are in each state; `requested` counts open requests (metrics).
    func rideCounts() async throws -> [RideState: Int]
}

/// A passenger's saved places.
public protocol PlaceStore: Sendable {
    /// The account's places, by name.
    func savedPlaces(accountID: String) async throws -> [SavedPlaceRecord]
    /// Adds the place, or changes its address when the name is already saved.
    func savePlace(_ place: SavedPlaceRecord) async throws -> SavedPlaceRecord
    /// False when the account had no place by that name.
    func removePlace(accountID: String, name: String) async throws -> Bool
}

/// What happens at the kerb: touch proofs, the ride word, the locator sound, notes and positions.
public protocol KerbStore: Sendable {
    // Touch proofs
    /// Records a proof the caller already verified against the ride key and, when `policy`
    /// is now met, confirms the ride (a `confirmed` event) in the same transaction. Throws
    /// `illegalTransition(from:to: .confirmed)` unless the ride is `arrived`, and `replayed`
    /// when the same proof (ride, side, slot, observedAt) was recorded before, or a proof of
    /// the same side and slot whose observation ends within `TouchProof.resentTolerance`
    /// of this one's (a resend), checked in the recording's transaction; either way nothing is written. Proofs of one ride are serialised, so two sides' simultaneous
    /// proofs see each other, also on several servers.
    func recordTouchProof(_ proof: VerifiedTouchProof, policy: TouchPolicy, idempotency: IdempotencyScope?) async throws -> TouchProofRecording
    /// A ride's accepted proofs, oldest first.
    func touchProofs(rideID: String) async throws -> [VerifiedTouchProof]

    // The ride word
    /// Spends one of the ride's ride-word attempts: true while fewer than `limit` were spent
    /// (one more is now), false once all were (nothing changes). One statement, so attempts
    /// racing on several servers spend exactly `limit`. Throws `notFound` for an unknown ride.
    func spendRideWordAttempt(rideID: String, limit: Int) async throws -> Bool

    // The locator sound
    /// Appends a `locator_requested` event to the ride's history at `now`, unless the ride is
    /// not `arrived` or its last one is less than `minimumInterval` seconds old (then nothing
    /// is written). Checked and written in one transaction, so several servers on one
    /// database refuse alike. Throws `notFound` for an unknown ride.
    func requestLocator(rideID: String, by actorID: String, at now: Date, minimumInterval: Double) async throws -> LocatorRecording

    // The meeting at the kerb
    /// Appends `note` (an event that changes no state: the driver's locator answer, the driver
    /// coming, the car across the street, the guide reporting in) while the ride is in one of
    /// `note.states`, and, with `requiresEarlier`, only once the history holds such an event;
    /// otherwise nothing is written. One transaction. Throws `notFound` for an unknown ride.
    /// With `idempotency` (a passenger message's Idempotency-Key) the note's answer is stored
    /// in the same transaction: the same key for the same note (ride, kind and detail) answers
    /// its first event again and writes nothing (`isReplay`, whatever the ride's state now);
    /// the key with another note throws `idempotencyKeyReused`. A refusal stores nothing.
    /// `perRideLimit`, `unchangedAmong` and `answersOnePerRequest` are checked in the same
    /// transaction, after the state (a replay answers before them).
    func recordRideNote(_ note: RideNote, idempotency: IdempotencyScope?) async throws -> KeyedRideNoteRecording

    // Positions during the approach (issue 35)
    /// Keeps `position` as `party`'s latest on the ride, replacing the one before (never a
    /// history), while the ride is `accepted` or `arrived`; otherwise nothing is written
    /// (`wrongState`). The state is checked and the row written atomically, so a write racing
    /// the ride's end leaves nothing behind: the end deletes the ride's positions in its own
    /// transaction (a trigger on the ride's state, both stores). Throws `notFound` for an unknown ride.
    func recordPosition(rideID: String, party: TouchSide, _ position: RidePosition) async throws -> PositionRecording
    /// `party`'s latest position on the ride, exact; nil when none is kept.
    func position(rideID: String, party: TouchSide) async throws -> RidePosition?
}

/// Retention: what is forgotten, and when.
public protocol RetentionStore: Sendable {
    /// Blanks pickup, drop-off and accessibility notes of requests that ended (ride completed
    /// or cancelled, or request withdrawn) before `cutoff`, judged by their last event.
    /// Returns how many requests were purged now; already purged ones are not counted again.
    /// In the same transaction it also blanks every copy of those fields: the passenger's name
    /// on the request, event details (cancel reasons), stored idempotency results older than
    /// the cutoff, and the ride keys of those finished rides. It also deletes every position
    /// still kept for a ride that ended (none should be: the end deletes them) and every
    /// position received before the cutoff.
    func purgeLocations(finishedBefore cutoff: Date) async throws -> Int
    /// Deletes stored idempotency results recorded before `cutoff`; a retry with such a key is
    /// then a new request. Returns how many were deleted.
    func purgeIdempotencyResults(createdBefore cutoff: Date) async throws -> Int
}

/// The rides' histories, as streams and pages read them.
public protocol RideHistoryStore: Sendable {
    /// The ride's whole history, from its request's `requested` event on.
    func events(rideID: String, after id: Int64) async throws -> [RideEvent]
    /// At most `limit` of the ride's events after `id`, oldest first: a stream's replay reads
    /// the history page by page, so no read (nor the memory it takes) grows with the history.
    func events(rideID: String, after id: Int64, limit: Int) async throws -> [RideEvent]
    /// The ride's newest event of one of these kinds (one indexed row, not the history: the
    /// dispatcher board and the passenger page ask on every view).
    func latestEvent(rideID: String, kinds: Set<RideEventKind>) async throws -> RideEvent?
    /// Events of every ride after `id`, oldest first (dispatchers' live view).
    func events(after id: Int64, limit: Int) async throws -> [RideEvent]
    /// The newest event id, 0 when there is none.
    func lastEventID() async throws -> Int64
    /// The request's (and so its ride's) latest `cancelled` state change, if it was cancelled:
    /// its actor and reason say who cancelled and why (`RideCancellation`).
    func cancellation(requestID: String) async throws -> RideEvent?
}

/// How the store tells the process (and, on PostgreSQL, every process) of committed writes.
public protocol StoreNotifications: Sendable {
    // Committed writes
    /// This store's announcements of its own committed writes: appended events (every write
    /// that adds to a history) and revoked tokens, each after its commit.
    var commits: CommitAnnouncements { get }

    // Cross-process wake-ups
    /// True when other processes may append events to the same database, so listeners must
    /// hear about appends through `listenForAppendedEvents` (PostgreSQL), not just locally.
    var sharesEventsAcrossProcesses: Bool { get }
    /// Calls `onAppend` with the id of every event appended by any process (and with
    /// `.tokensRevoked` when any process revoked tokens), until cancelled or
    /// the connection is lost (then it throws; the caller re-listens and re-reads the history).
    /// `onListening` runs once listening has begun, so the caller can catch up on anything
    /// appended before. Returns at once when `sharesEventsAcrossProcesses` is false.
    func listenForAppendedEvents(onListening: @escaping @Sendable () -> Void, onAppend: @escaping @Sendable (CrossProcessNotice) -> Void) async throws
    /// Gives ids to events whose writes committed but which a writer that then stopped (a
    /// crash, a lost connection) left unsequenced; `serve` calls it before its first request,
    /// event hubs whenever they start listening and on every poll.
    /// Nothing to do on SQLite, whose one writer appends in id order.
    func sequenceEvents() async throws
}
