import Foundation
import RideWire

/// How much one ride takes of what its people may post, once (issues 36 and 38): the caps per
/// ride, the locator's least interval, the ride word's attempts. The stores enforce them in
/// their write transactions (PostgreSQL's triggers and functions have the numbers written into
/// their migrations: changing one needs a new migration); the server's routes, the in-memory
/// double and the simulator read them here.
public enum RideLimits {
    /// The driver's ETA updates per ride.
    public static let etaUpdatesPerRide = 20
    /// Locator requests per ride: at one per 10 s while arrived, ten minutes of asking without a
    /// pause; a walk to the car asks a few times.
    public static let locatorRequestsPerRide = 60
    /// Touch proofs per ride, both sides together: a touch is one proof a side, a few when the
    /// phones part and meet again.
    public static let touchProofsPerRide = 60
    /// `guide_started` and `guide_stopped` each, per ride: a guide restarted many times.
    public static let guideReportsPerRide = 20
    /// `driver_coming` and `car_across` each, per ride.
    public static let meetingMovesPerRide = 10
    /// Messages to the driver per ride.
    public static let messagesPerRide = 30
    /// Words a ride's passenger may try, right or wrong, before the ride word stops confirming
    /// that ride: a passenger mishearing the driver twice still gets in; a guesser gets 5
    /// chances in 4 032 (64 × 63 phrases) instead of unlimited tries (the issue 36 review tried
    /// 4 031 wrong pairs in 8 s, then the right one confirmed).
    public static let rideWordAttemptsPerRide = 5
    /// Requests that the driver come to the passenger, per ride (issue 37, point 2): at one per
    /// `comeRequestInterval`, five minutes of asking; a driver who answers is asked once or twice.
    public static let comeRequestsPerRide = 10
    /// Least time between two come requests of one ride, s: long enough for his device's
    /// answer (`comeAnswerWait`) to come back before she may ask again, so a request is never
    /// on top of an unanswered one.
    public static let comeRequestInterval = 30.0
    /// How long the passenger waits for the driver's answer to a come request before she is
    /// told there is none and offered the next step, s. His device says the request at once and
    /// he presses one key; 25 s is a driver parking or taking off his seat belt first.
    public static let comeAnswerWait = 25.0

    /// The locator rule (`LocatorRule`): a request at `now` (seconds) after the ride's last one
    /// at `last` is too soon when less than `minimumInterval` has passed; the answer is how
    /// long to wait, nil when the request may go.
    public static func locatorRetryAfter(last: Double?, now: Double, minimumInterval: Double = LocatorRule.minimumInterval) -> Double? {
        guard let last, now - last < minimumInterval else { return nil }
        return minimumInterval - (now - last)
    }

    /// The come-request rule: like the locator's, a request at `now` (s) within
    /// `comeRequestInterval` of the ride's last one at `last` is too soon; how long to wait, or nil.
    public static func comeRetryAfter(last: Double?, now: Double) -> Double? {
        locatorRetryAfter(last: last, now: now, minimumInterval: comeRequestInterval)
    }
}
