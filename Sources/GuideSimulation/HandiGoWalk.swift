import Guide
import BeaconCore
import Foundation

/// The prototype's policy in the same simulator, as the baseline (seeds/handigo-report.txt):
/// CoreLocation-style ranging once a second (the mean RSSI of the last second through the
/// path-loss model), a "closer" vibration whenever that distance is below the previous one,
/// nothing otherwise — the report's "stops vibrating" is the only sign of a wrong way, so the
/// walker turns after `silenceMeansWrongWay` seconds without one. Touch is the estimate under
/// 5 cm, then the Enter press confirms (no server round trip).
public struct HandiGoWalk {
    public static let rangingInterval = 1.0
    public static let touchDistance = 0.05
    public static let silenceMeansWrongWay = 3.0

    public let configuration: GuidedWalk.Configuration
    public private(set) var world: SimulatedWorld

    public init(configuration: GuidedWalk.Configuration) {
        self.configuration = configuration
        world = SimulatedWorld(seed: configuration.seed, startDistance: configuration.startDistance,
                               channel: configuration.channel, calibrated: configuration.calibratedChannel,
                               walker: configuration.walker, street: configuration.street)
    }

    public mutating func run() -> WalkSummary {
        let model = PathLossModel.default
        var window: [Double] = []
        var previous: Double?
        var nextRanging = Self.rangingInterval
        var lastVibration = 0.0
        var cues: [String: Int] = [:]
        var wrong = 0
        var secondsTo1m: Double?
        var confirmedAt: Double?
        var prompted = false
        while world.time < configuration.timeLimit, confirmedAt == nil {
            let heard = world.advance()
            let now = world.time
            if secondsTo1m == nil, world.trueDistance < 1 { secondsTo1m = now }
            window += heard.atPassenger.map { Double($0.rssi) }
            if now >= nextRanging {
                nextRanging += Self.rangingInterval
                if !window.isEmpty {
                    let distance = model.distance(forRSSI: window.reduce(0, +) / Double(window.count))
                    window.removeAll(keepingCapacity: true)
                    if let previous, distance < previous {
                        cues["closer", default: 0] += 1
                        if world.isWrongDirection(closer: true) { wrong += 1 }
                        lastVibration = now
                        world.hear(.towards)
                    }
                    previous = distance
                    if distance < Self.touchDistance, !prompted {
                        prompted = true
                        cues["touch", default: 0] += 1
                        world.hear(.touchPrompt)
                    }
                }
            }
            if now - lastVibration >= Self.silenceMeansWrongWay {
                lastVibration = now
                world.hear(.away)
            }
            if let at = world.walker.confirmAt, now >= at { confirmedAt = now }
        }
        return WalkSummary(confirmed: confirmedAt != nil, secondsTo1m: secondsTo1m.map(GuidedWalk.rounded),
                           secondsToConfirm: confirmedAt.map(GuidedWalk.rounded),
                           straightLineSeconds: GuidedWalk.rounded(world.straightLineSeconds),
                           cues: cues, wrongDirectionCues: wrong, seed: configuration.seed)
    }
}
