import Guide
import Foundation
import GuideAudio

/// The kerbside of one simulated run: the car's beacon at the origin, the walking passenger, the
/// channel each way, and the truth the cues are judged against. Advances in virtual time.
public struct SimulatedWorld: Sendable {
    public static let advertInterval = 0.1
    public static let step = 0.05

    public let seed: UInt64
    public private(set) var channelParameters: ChannelModel.Parameters
    public internal(set) var walker: Walker
    public internal(set) var time = 0.0
    var toPassenger: ChannelModel
    var toDriver: ChannelModel
    var rng: SeededRandom
    var nextAdvert = (driver: 0.0, passenger: 0.05)
    /// Each phone's advertising interval now, s: the car's and hers (`ProductAdvertising`; the
    /// street's report processes follow it).
    var advertisingIntervals = (driver: ProductAdvertising.normal, passenger: ProductAdvertising.normal)
    /// True distance every step, for judging direction cues.
    var history: [Double] = []
    /// The passenger's ears for the car's locator ticks.
    public internal(set) var listener: LocatorListener
    /// While the car ticks: when it started, when it stops, the next tick.
    var locator: (started: Double, until: Double, next: Double)?
    public internal(set) var locatorTicksPlayed = 0
    public internal(set) var locatorTicksHeard = 0
    /// The street and what was drawn for it (nil: the open field of earlier rounds).
    public internal(set) var scene: StreetScene?
    /// When the two phones first touched (within 2 cm), s.
    public internal(set) var contactAt: Double?
    /// When the driver holds the phone out of the window (the passenger being at the car).
    var holdOutAt: Double?
    /// The driver's sounds still to come (horn taps, calls), and every one made and heard.
    var pendingSounds: [(time: Double, sound: StreetSound)] = []
    public internal(set) var soundsMade: [(time: Double, kind: StreetSound.Kind)] = []
    public internal(set) var soundsHeard = 0
    /// Whether the driver holds the phone out of the window for a passenger at the car.
    public var driverHoldsOut = true
    /// How far the walker moved in the last step, m.
    public internal(set) var lastMove = 0.0
    /// Whether the walker is walking (moved in the last step).
    public var isWalking: Bool { lastMove > 0.005 }

    /// `channel` fixes the channel; otherwise one is drawn per seed from the fit to real traces
    /// (`ChannelModel.Parameters.calibrated`), or with `calibrated: false` from the ranges used
    /// before that fit (`random`, kinder than reality; `make sim-fidelity` compares them).
    public init(seed: UInt64, startDistance: Double, channel: ChannelModel.Parameters? = nil, calibrated: Bool = true,
                walker: Walker.Parameters = Walker.Parameters(), listener: LocatorListener.Parameters = .init(),
                street: StreetParameters? = nil) {
        self.seed = seed
        var root = SeededRandom(seed: seed)
        var worldRNG = root.fork()
        channelParameters = channel ?? (calibrated ? .calibrated(&worldRNG) : .random(&worldRNG))
        toPassenger = ChannelModel(parameters: channelParameters, rng: root.fork())
        toDriver = ChannelModel(parameters: channelParameters, rng: root.fork())
        self.walker = Walker(distance: startDistance, parameters: walker, rng: root.fork())
        rng = root.fork()
        // Forked last, so walks without the locator draw exactly what they drew before it existed.
        self.listener = LocatorListener(parameters: listener, rng: root.fork())
        if let street {
            // The street draws from its own stream: the open field's walks stay as they were.
            var streetRNG = SeededRandom(seed: seed ^ 0x5743_EE7C_A12B_0001)
            let scene = StreetScene(parameters: street, startDistance: startDistance, walker: walker, rng: &streetRNG)
            self.scene = scene
            toPassenger = ChannelModel(parameters: scene.channel, rng: streetRNG.fork())
            toDriver = ChannelModel(parameters: scene.channel, rng: streetRNG.fork())
            self.walker = scene.makeWalker(rng: streetRNG.fork())
            rng = streetRNG.fork()
            self.listener = LocatorListener(parameters: listener, rng: streetRNG.fork())
            channelParameters = scene.channel
            nextAdvert = (scene.driverReports.nextInterval(&rng), scene.passengerReports.nextInterval(&rng))
        }
        history = [self.walker.distance]
    }

    public var trueDistance: Double { walker.distance }
    /// Where the driver's device is now.
    public var device: Point { walker.target }
    public var headingOffset: Double {
        wrapAngle(walker.heading - walker.position.bearing(to: device)) * 180 / .pi
    }

    /// A sighting on one side: its time and RSSI.
    public struct Reception: Sendable, Equatable {
        public var time: Double
        public var rssi: Int8
    }

    /// Moves one step; returns what each side received during it.
    public mutating func advance() -> (atPassenger: [Reception], atDriver: [Reception]) {
        let before = walker.position
        defer { lastMove = walker.position.distance(to: before) }
        if scene != nil { return advanceOnStreet() }
        let end = time + Self.step
        walker.step(to: end, dt: Self.step)
        var atPassenger: [Reception] = [], atDriver: [Reception] = []
        // BLE adds 0–10 ms of random delay to every advertising event.
        while nextAdvert.driver < end {
            if let rssi = toPassenger.receive(at: nextAdvert.driver, receiver: walker.position, facing: walker.heading) {
                atPassenger.append(Reception(time: nextAdvert.driver, rssi: rssi))
            }
            nextAdvert.driver += Self.advertInterval + rng.uniform(0...0.01)
        }
        while nextAdvert.passenger < end {
            if let rssi = toDriver.receive(at: nextAdvert.passenger, receiver: walker.position, facing: walker.heading) {
                atDriver.append(Reception(time: nextAdvert.passenger, rssi: rssi))
            }
            nextAdvert.passenger += Self.advertInterval + rng.uniform(0...0.01)
        }
        time = end
        history.append(walker.distance)
        tickLocator(until: end)
        return (atPassenger, atDriver)
    }

    /// The car starts (or restarts) its locator ticks now, for `seconds`.
    public mutating func startLocator(seconds: Double) {
        let started = locator?.started ?? time
        locator = (started, time + seconds, time)
    }

    public mutating func stopLocator() { locator = nil }

    public var locatorSounding: Bool { locator != nil }

    /// Ticks due before `end` reach the walker's ears (the car is closed until the driver has
    /// had time to open the window or step out).
    private mutating func tickLocator(until end: Double) {
        playTicks(until: end) { world, tick, sinceStart in
            let bearing = wrapAngle(world.walker.position.bearing(to: Point(x: 0, y: 0)) - world.walker.heading)
            let closed = sinceStart < world.listener.parameters.windowDelay
            return world.listener.hear(bearing: bearing, distance: world.walker.distance, carClosed: closed)
        }
    }

    /// The locator's ticks due before `end`, each played and, when `hear` finds it audible
    /// (given the tick's time and how long the locator has been sounding), heard by the walker
    /// from the direction `hear` returns (relative to where she faces).
    mutating func playTicks(until end: Double, hear: (inout SimulatedWorld, Double, Double) -> Double?) {
        while let current = locator, current.next < end {
            guard current.next < current.until else {
                locator = nil
                return
            }
            locator?.next = current.next + LocatorTick.period
            locatorTicksPlayed += 1
            guard let heard = hear(&self, current.next, current.next - current.started) else { continue }
            locatorTicksHeard += 1
            walker.hear(.soundFrom(heading: walker.heading + heard), at: current.next)
        }
    }

    public mutating func hear(_ hint: WalkerHint) { walker.hear(hint, at: time) }
    public mutating func walkerConfirmed() { walker.confirmed() }

    /// Whether a direction cue now contradicts the truth: "closer" while the true distance grew
    /// by more than 10 cm over the last second, or "farther" while it shrank as much. Cues while
    /// standing or turning are not counted either way.
    public func isWrongDirection(closer: Bool) -> Bool {
        let back = Int((1.0 / Self.step).rounded())
        guard history.count > back else { return false }
        let change = history[history.count - 1] - history[history.count - 1 - back]
        return closer ? change > 0.1 : change < -0.1
    }

    /// Seconds a sighted walker needs in a straight line from this walk's start to the device.
    public var straightLineSeconds: Double {
        guard let scene else { return Self.straightLineSeconds(startDistance: history.first ?? 0, walker: walker.parameters) }
        return scene.straightLine / walker.parameters.speed
    }

    /// Seconds a sighted walker needs from the start point to the car.
    public static func straightLineSeconds(startDistance: Double, walker: Walker.Parameters = Walker.Parameters()) -> Double {
        startDistance / walker.speed
    }
}
