import Guide
import BeaconCore
import Foundation

/// Other cars at the same kerb, each advertising its own ride's rotating identity at 10 Hz
/// (a stadium exit, an airport pick-up lane). They matter twice: the guide must ignore every
/// identity but its ride's, and their adverts collide on air with the ride's own.
///
/// Collisions follow pure ALOHA per advertising channel: every advertiser sends each advertising
/// event on all three channels, a legacy iBeacon PDU lasts 376 µs, so with N advertisers at 10 Hz
/// an advert survives with probability exp(-2 G), G = N · 10 · 376 µs (200 cars: 22 %).
public struct CrowdedCurb: Sendable {
    public static let advertAirtime = 376e-6

    public struct Car: Sendable {
        public var identity: RotatingIdentity
        /// Distance from the passenger's start, fixed: decoys are judged only by being ignored.
        public var distance: Double
    }

    public let cars: [Car]
    private var rng: SeededRandom
    private var nextAdvert: [Double]

    public init(count: Int, seed: UInt64) {
        var rng = SeededRandom(seed: seed ^ 0xC0FF_EE00_D15E_A5E5)
        cars = (0..<count).map { _ in
            let key = Data((0..<RotatingIdentity.keyLength).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            // The key is 32 bytes and the period the default, so this cannot throw.
            let identity = try! RotatingIdentity(rideKey: key, period: RotatingIdentity.defaultPeriod)
            return Car(identity: identity, distance: rng.uniform(2...60))
        }
        nextAdvert = cars.map { _ in rng.uniform(0...0.1) }
        self.rng = rng
    }

    /// The share of one advertiser's adverts that survive the others' (the ride's car included).
    public var survival: Double {
        exp(-2 * Double(cars.count + 1) * 10 * Self.advertAirtime)
    }

    /// Whether one of the ride's own adverts survives the crowd.
    public mutating func survives() -> Bool { cars.isEmpty || rng.chance(survival) }

    /// The decoy adverts the passenger hears in (start, end]: a time, an RSSI and the frame.
    public mutating func heard(until end: Double, unixTime: (Double) -> Double) -> [(time: Double, rssi: Double, beacon: IBeacon)] {
        var heard: [(time: Double, rssi: Double, beacon: IBeacon)] = []
        let keep = survival
        for index in cars.indices {
            while nextAdvert[index] < end {
                let time = nextAdvert[index]
                nextAdvert[index] += 0.1 + rng.uniform(0...0.01)
                guard rng.chance(keep) else { continue }
                let car = cars[index]
                let rssi = -59 - 20 * log10(car.distance) + 4 * rng.gaussian()
                guard rssi > -100 else { continue }
                let identity = car.identity.identity(of: .driver, slot: car.identity.slot(at: unixTime(time)))
                heard.append((time, rssi.rounded(), identity.beacon(measuredPower: -59)))
            }
        }
        return heard.sorted { $0.time < $1.time }
    }
}
