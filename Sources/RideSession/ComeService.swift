import RideRules
import RideWire

/// The ride service's answer to the passenger's request that the driver come to her.
public enum ComeRequestAnswer: Sendable, Equatable {
    /// Recorded; his device is told through the ride's stream, and answers there.
    case asked
    /// Asked too recently (`RideLimits.comeRequestInterval`); ask again after this long, s.
    case tooSoon(retryAfter: Double)
    /// Refused or not delivered; the reason in words.
    case refused(String)

    /// How long the passenger waits for the driver's answer before she is told there is none
    /// and offered the next step, s (`RideLimits.comeAnswerWait`).
    public static let answerWait = RideLimits.comeAnswerWait
}

extension RideService {
    /// A service that does not take come requests (the simulator's) refuses them.
    public func askToCome(rideID: String) async -> ComeRequestAnswer { .refused("this ride service takes no come requests") }

    /// A service that does not take come requests refuses their answers.
    public func answerCome(rideID: String, _ answer: ComeAnswer) async -> String? { "this ride service takes no come requests" }
}
