import Guide
import RideSession

/// Each phone's advertising interval as the product sets it (issue 34): every 100 ms
/// (`BeaconAdvertisement.ride`), and every 20 ms for `IdentityAdvertiser.hurrySeconds` from the
/// moment the phone's own rule hurries it: her guide entering the last metre ("very close",
/// holding or feeling the touch: `LiveGuide.inLastMetre`), the driver's device putting her
/// within `DriverSession.hurryWithin`. Each rule fires on entering, as the product's does.
struct ProductAdvertising: Sendable {
    static let normal = 0.1
    static let fast = 0.02
    private var passengerUntil = -Double.infinity
    private var driverUntil = -Double.infinity
    private var passengerWasIn = false
    private var driverWasIn = false

    /// Updates both rules at `now` (s); returns (the car's interval, hers), s.
    mutating func update(now: Double, guide: GuideCore, driver: DriverCore) -> (driver: Double, passenger: Double) {
        let passengerIn = LiveGuide.inLastMetre(guide)
        if passengerIn, !passengerWasIn { passengerUntil = now + IdentityAdvertiser.hurrySeconds }
        passengerWasIn = passengerIn
        let driverIn = driver.passengerFarthest(at: now).map { $0 <= DriverSession.hurryWithin } ?? false
        if driverIn, !driverWasIn { driverUntil = now + IdentityAdvertiser.hurrySeconds }
        driverWasIn = driverIn
        return (now < driverUntil ? Self.fast : Self.normal, now < passengerUntil ? Self.fast : Self.normal)
    }
}
