import Foundation

/// An error answer's machine-readable code (openapi.yaml `Error.code`). The server answers
/// with these constants; a client keeps codes it does not know as they came.
/// ```swift
/// if problem.code == .illegalTransition { … }
/// ```
public struct APIErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code as it appears in the JSON.
    public var rawValue: String
    /// Any code, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The code as it appears in the JSON (`illegal_transition`).
    public var description: String { rawValue }

    /// 400: the body is not JSON, or not the documented object.
    public static let invalidJSON = Self(rawValue: "invalid_json")
    /// 400: one body field is missing or out of range (`field` names it).
    public static let invalidField = Self(rawValue: "invalid_field")
    /// 400: a query parameter or header is malformed (`field` names it).
    public static let invalidParameter = Self(rawValue: "invalid_parameter")
    /// 400: the request contradicts itself or the store's rules.
    public static let invalidRequest = Self(rawValue: "invalid_request")
    /// 401: no token, or a token that is unknown, revoked or expired.
    public static let unauthenticated = Self(rawValue: "unauthenticated")
    /// 403: the caller's role or relation to the ride does not allow this.
    public static let forbidden = Self(rawValue: "forbidden")
    /// 404: no such ride, request or account (or the caller may not know it exists).
    public static let notFound = Self(rawValue: "not_found")
    /// 405: the path exists, the method does not (`Allow` lists the methods).
    public static let methodNotAllowed = Self(rawValue: "method_not_allowed")
    /// 409: the ride's state does not allow this change (`state` is the current one).
    public static let illegalTransition = Self(rawValue: "illegal_transition")
    /// 409: another driver accepted the request first.
    public static let alreadyTaken = Self(rawValue: "already_taken")
    /// 409: the passenger already has an open request or an active ride (`existingId` names it).
    public static let passengerHasActiveRide = Self(rawValue: "passenger_has_active_ride")
    /// 409: the driver already has an accepted or arrived ride (`existingId` names it).
    public static let driverHasActiveRide = Self(rawValue: "driver_has_active_ride")
    /// 401 from `POST /v1/sign-in`: no such sign-in code was ever issued.
    public static let invalidSignInCode = Self(rawValue: "invalid_sign_in_code")
    /// 401 from `POST /v1/sign-in`: the code's 24 hours are over; ask for a new one.
    public static let signInCodeExpired = Self(rawValue: "sign_in_code_expired")
    /// 401 from `POST /v1/sign-in`: the code was already used; ask for a new one.
    public static let signInCodeUsed = Self(rawValue: "sign_in_code_used")
    /// 409: this Idempotency-Key already issued a token, whose secret was shown once.
    public static let tokenAlreadyIssued = Self(rawValue: "token_already_issued")
    /// 413: the body is larger than the server accepts.
    public static let bodyTooLarge = Self(rawValue: "body_too_large")
    /// 422: the Idempotency-Key was used before for a different request.
    public static let idempotencyKeyReused = Self(rawValue: "idempotency_key_reused")
    /// Touch proof: the caller is not this ride's passenger or driver.
    public static let notYourRide = Self(rawValue: "not_your_ride")
    /// Touch proof: the ride is not in a state that takes proofs.
    public static let wrongState = Self(rawValue: "wrong_state")
    /// Touch proof: observed too long ago, or in the future.
    public static let staleProof = Self(rawValue: "stale_proof")
    /// Touch proof: the slot is not the current one or a neighbour.
    public static let staleSlot = Self(rawValue: "stale_slot")
    /// Touch proof: the identity is not the counterpart's for that slot.
    public static let wrongIdentity = Self(rawValue: "wrong_identity")
    /// Touch proof: the same proof was already recorded.
    public static let replayedProof = Self(rawValue: "replayed_proof")
    /// A locator answer with no locator request in the ride's history to answer.
    public static let nothingToAnswer = Self(rawValue: "nothing_to_answer")
    /// Ride word: not this ride's two words.
    public static let wrongRideWord = Self(rawValue: "wrong_ride_word")
    /// 409, ride word: this ride's word was tried too often (`RideWordPolicy.attemptsPerRide`);
    /// it no longer confirms the ride: confirm by touch, or the ride service's operator does.
    public static let rideWordLocked = Self(rawValue: "ride_word_locked")
    /// 409: the ride's history already holds as many events of this kind as a ride takes
    /// (guide reports, meeting moves, messages: `RideEventLimits`).
    public static let rideEventLimit = Self(rawValue: "ride_event_limit")
    /// 409: the event would change nothing (the guide started twice, the car across twice).
    public static let noChange = Self(rawValue: "no_change")
    /// 429: too many requests; `Retry-After` says when to try again.
    public static let rateLimited = Self(rawValue: "rate_limited")
    /// 503: the database is unreachable; retry after `Retry-After`.
    public static let unavailable = Self(rawValue: "unavailable")
    /// Another HTTP error the framework raised (the status says which).
    public static let httpError = Self(rawValue: "http_error")
    /// 400: the dispatcher page's login form could not be read (the page, not /v1).
    public static let invalidForm = Self(rawValue: "invalid_form")
    /// 429 on an event stream: this token already holds the most open streams one token may.
    public static let tooManyStreams = Self(rawValue: "too_many_streams")
    /// The last block (`event: error`) of an event stream whose token was revoked.
    public static let tokenRevoked = Self(rawValue: "token_revoked")
    /// The last block (`event: error`) of an event stream whose token expired.
    public static let tokenExpired = Self(rawValue: "token_expired")
    /// The last block (`event: error`) of an event stream that fell too far behind the live
    /// events; unlike the token codes, reconnecting with `Last-Event-ID` resumes it.
    public static let streamTooSlow = Self(rawValue: "stream_too_slow")
    /// 403: the dispatcher page's form came from another site (Origin/Referer).
    public static let crossSiteForm = Self(rawValue: "cross_site_form")
    /// 500: a bug; the request id in the logs finds it.
    public static let internalError = Self(rawValue: "internal")

    /// Encodes as the bare string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Decodes from the bare string; any string is kept.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
}

/// Every error answer's body: `{"error":{"code","message","field"?,"state"?}}`.
public struct APIErrorBody: Sendable, Equatable, Codable {
    /// The inner object.
    public struct Detail: Sendable, Equatable, Codable {
        /// What went wrong, for programs.
        public var code: APIErrorCode
        /// What went wrong, for people.
        public var message: String
        /// The input at fault (body field, query parameter or header).
        public var field: String?
        /// On conflicts, the state the ride or request is really in. Kept as text when
        /// decoding, so a state a newer server adds does not make the whole body unreadable.
        public var state: String?
        /// On one-ride-at-a-time conflicts, the id of the request or ride already held.
        public var existingID: String?

        /// An error's detail.
        public init(code: APIErrorCode, message: String, field: String? = nil, state: RideState? = nil, existingID: String? = nil) {
            self.code = code
            self.message = message
            self.field = field
            self.state = state?.rawValue
            self.existingID = existingID
        }

        enum CodingKeys: String, CodingKey {
            case code, message, field, state, existingID = "existingId"
        }
    }

    /// The error.
    public var error: Detail

    /// A body around `error`.
    public init(error: Detail) { self.error = error }
}
