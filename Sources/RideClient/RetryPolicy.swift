import Foundation

/// How often, and how patiently, a failed call is tried again. Only retryable failures
/// (`RideClientError.isRetryable`) are; a write keeps its Idempotency-Key across attempts, so
/// a retry after a lost response cannot do the work twice.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included; nil tries until the task is cancelled.
    public var maxAttempts: Int?
    public var initialDelay: Duration
    public var maxDelay: Duration
    public var multiplier: Double
    /// Whether a server that did not take the connection is tried again. One-shot commands say
    /// at once that it is not answering (each try already waited the connect timeout); things
    /// that wait anyway keep trying.
    public var retriesNotAnswering: Bool

    public init(maxAttempts: Int?, initialDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8), multiplier: Double = 2,
                retriesNotAnswering: Bool = true) {
        self.maxAttempts = maxAttempts.map { max(1, $0) }
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.multiplier = max(1, multiplier)
        self.retriesNotAnswering = retriesNotAnswering
    }

    /// Whether `error` is worth another try of a call that is (or is not) `idempotent`: a
    /// call that may have reached the server is repeated only when repeating cannot do its work twice.
    public func retries(_ error: RideClientError, idempotent: Bool) -> Bool {
        guard error.isRetryable else { return false }
        if case .notAnswering = error { return retriesNotAnswering }
        return idempotent
    }

    /// One-shot commands: a few quick tries of a service that answered but failed; a service
    /// that does not answer is reported after one connect timeout (about 2 s).
    public static let standard = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(250), maxDelay: .seconds(2), retriesNotAnswering: false)
    /// Something that waits anyway (a driver at the kerb, a guide, a dispatcher's board).
    public static let untilCancelled = RetryPolicy(maxAttempts: nil, initialDelay: .milliseconds(500), maxDelay: .seconds(10))
    public static let never = RetryPolicy(maxAttempts: 1)

    public func allowsAttempt(_ attempt: Int) -> Bool { maxAttempts.map { attempt <= $0 } ?? true }

    /// The pause after failed attempt `attempt` (1-based): exponential, capped, with up to 20 %
    /// jitter so many clients that lost the server at once do not return in lockstep. A
    /// server's `Retry-After` is a floor.
    public func delay(afterAttempt attempt: Int, retryAfterSeconds: Int? = nil) -> Duration {
        let base = Double(initialDelay.components.seconds) + Double(initialDelay.components.attoseconds) / 1e18
        let cap = Double(maxDelay.components.seconds) + Double(maxDelay.components.attoseconds) / 1e18
        let exponential = min(cap, base * pow(multiplier, Double(max(0, attempt - 1))))
        var seconds = exponential * Double.random(in: 0.8...1.0)
        if let floor = retryAfterSeconds { seconds = max(seconds, min(Double(floor), max(cap, 60))) }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}

/// A retry about to happen, for callers that tell the user ("Cannot reach the ride service, retrying").
public struct RetryNotice: Sendable {
    public var error: RideClientError
    /// The attempt that failed, 1-based.
    public var attempt: Int
    public var delay: Duration
}
