import BeaconCore
import Foundation
import Guide
import GuideSimulation
import GuideAudio

/// Drives a `GuideCore` through a scripted walk: true distance as a function of time, turned
/// into 10 Hz sightings by the mean path loss plus seeded noise, with ticks every 50 ms.
struct ScriptedGuide {
    static let base = 1_700_000_010.0  // a 30 s slot boundary (1_700_000_010 = 30 × 56_666_667)
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 42, count: 32))
    static let ride = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: identity)

    var core: GuideCore
    var actions: [(time: Double, action: GuideAction)] = []
    var time = 0.0
    private var rng = SeededRandom(seed: 5)
    private let noise: Double
    /// The world's mean path loss (the ideal line, −59 dBm and n = 2, unless a test says otherwise).
    private let channel: ChannelModel.Parameters

    /// The scripted world's own line (−59 dBm at 1 m, n = 2) as a fit with its 1.5 dB spread:
    /// a guide that knows it can say numbers; one without (the default) only what a guessed
    /// line supports (`DistanceUncertainty.uncalibrated`).
    static let matchedLine = Calibration(model: .default, residual: 1.5, source: "the scripted world's line")

    init(verbosity: Verbosity = .brief, noise: Double = 1.5, aids: GuideAids = .locator,
         calibration: Calibration = Calibration(model: .default), channel: ChannelModel.Parameters = .ideal, ride: GuideRide = Self.ride) {
        core = GuideCore(ride: ride, verbosity: verbosity, calibration: calibration, aids: aids)
        self.noise = noise
        self.channel = channel
        record(core.start(time: 0))
        record(core.handle(.arrived(time: 0)))
    }

    mutating func record(_ new: [GuideAction]) {
        actions += new.map { (time, $0) }
    }

    /// Walks from `time` for `seconds`; `distance(t)` is the true distance at seconds since the
    /// start of this segment, nil while the beacon is not heard.
    mutating func walk(seconds: Double, beacon: ((Double) -> IBeacon)? = nil, distance: (Double) -> Double?) {
        let start = time
        var nextAdvert = time
        while time < start + seconds - 1e-9 {
            time += 0.05
            while nextAdvert <= time {
                if let d = distance(nextAdvert - start) {
                    let rssi = (ChannelModel(parameters: channel, rng: rng).meanRSSI(atDistance: d) + noise * rng.gaussian()).rounded()
                    let unix = Self.base + nextAdvert
                    let seen = beacon?(unix) ?? Self.driverBeacon(at: unix)
                    record(core.handle(.sighting(time: nextAdvert, unixTime: unix, rssi: rssi, beacon: seen)))
                }
                nextAdvert += 0.1
            }
            record(core.handle(.tick(time: time)))
        }
    }

    mutating func press(_ key: GuideKey) { record(core.handle(.key(time: time, key))) }

    /// The ride's event stream says the driver's device felt the touch from `from` to `until`
    /// (seconds on the walk's clock, like `time`).
    mutating func driverFeels(from: Double, until: Double) {
        record(core.handle(.driverFeltTouch(time: time, from: Self.base + from, until: Self.base + until)))
    }

    /// Times at which the guide asked for the car's locator sound.
    var locatorRequests: [Double] {
        actions.filter { $0.action == .requestLocator }.map(\.time)
    }

    static func driverBeacon(at unix: Double, slotOffset: Int64 = 0) -> IBeacon {
        let slot = UInt64(Int64(identity.slot(at: unix)) + slotOffset)
        return identity.identity(of: .driver, slot: slot).beacon(measuredPower: -59)
    }

    /// The cues in order: earcon names in brackets, spoken text in quotes.
    var cues: [String] {
        actions.compactMap { if case .cue(let cue) = $0.action { cue.description } else { nil } }
    }

    /// Cues from `time` on.
    func cues(after time: Double) -> [String] {
        actions.filter { $0.time >= time }.compactMap { if case .cue(let cue) = $0.action { cue.description } else { nil } }
    }

    func pulseChanges(after time: Double) -> [Double?] {
        actions.filter { $0.time >= time }.compactMap { if case .pulse(let interval) = $0.action { .some(interval) } else { nil } }
    }
}
