import Guide
import Foundation

/// What a walker takes from the cues it hears, whoever produced them.
public enum WalkerHint: Equatable, Sendable {
    /// "Closer": keep going.
    case towards
    /// "Farther" (or, for a policy that only says "closer", a long silence): wrong way.
    case away
    /// "Very close, reach out": slow down, feel ahead.
    case veryClose
    /// "Signal lost, keep still".
    case keepStill
    /// Any sign of signal after a loss.
    case signal
    /// "Touch detected, press Enter".
    case touchPrompt
    /// A locator tick seemed to come from this heading (world frame, radians).
    case soundFrom(heading: Double)
    /// Turn-to-find: "hold the phone against your chest and turn slowly on the spot".
    case turnOnTheSpot
    /// "Stop. The car is ahead of you.": stop turning, walk the way now faced.
    case carAhead
    /// "Ben is walking to you. Stay where you are." / "Stay on the pavement": wait for the driver.
    case stayPut
    /// The satellite vector (issue 35): walk along the pavement this way (world frame, radians:
    /// 0 or π, the street's axis).
    case walkAlong(heading: Double)

    /// A sound heard on the street, not an instruction.
    var isHeardSound: Bool {
        if case .soundFrom = self { true } else { false }
    }
}

/// A blind passenger following cues: walks where they believe the car is, with a plausible
/// initial heading error and veer; on "wrong way" turns to probe (a quarter turn to one side,
/// then the other side, then back), keeps a heading that earns "closer"; slows when told the
/// car is within reach; finds the car body with the cane at arm's length and then reaches the
/// driver's phone; stops while the signal is lost; presses Enter a moment after a touch prompt;
/// asked to turn on the spot, turns steadily (phone at the chest, so the body is between phone
/// and car for half the turn) until told to stop, then walks the way faced.
public struct Walker: Sendable {
    public struct Parameters: Sendable, Equatable {
        public var speed = 1.0
        public var slowSpeed = 0.4
        /// Turning on the spot, rad/s (a careful quarter turn takes about a second).
        public var turnRate = Double.pi / 2
        /// Heading drift while walking without sight, rad/√s.
        public var veer = 0.06
        /// Initial heading error, σ, rad (clipped to ±2.5σ).
        public var headingError = 25.0 * .pi / 180
        /// How far ahead the cane finds the car body, m.
        public var caneReach = 0.8
        /// Within this of the driver's phone the hand takes over from the feet, m.
        public var armReach = 0.6
        /// Hand speed reaching for the driver's phone, m/s, and how close "touching" is, m.
        public var reachSpeed = 0.3
        public var contact = NearField.touching
        /// Delay from hearing a cue to acting on it, s.
        public var reaction = 0.5
        /// Delay from the touch prompt to pressing Enter, s: after the prompt has been spoken.
        public var confirmDelay = 3.5
        /// "Wrong way" hints this soon after a turn are the old heading's echo: ignored, s.
        public var settle = 2.5
        /// Walking this long without a "closer" makes the walker doubt the heading and probe the
        /// next direction, s.
        public var doubt = 15.0
        /// How long "keep still" is obeyed without news, s.
        public var patience = 8.0
        /// Turning slowly on the spot for turn-to-find, rad/s (a full turn in 12 s, as asked).
        public var spinRate = 2 * Double.pi / 12
        /// On the street: the chance of stepping into the road when the cane finds the kerb and
        /// the guidance points across it (`StreetParameters.stepOffChance`).
        public var stepOffChance = 0.5
        /// How long "stay where you are" (at the arrival, or for a driver said to be coming) is
        /// obeyed without another instruction or the driver, s (`StreetParameters.stayPutPatience`).
        public var stayPutPatience = 120.0
        /// Which way along the pavement she sets off (`FirstDirection`).
        public var firstDirection = FirstDirection.known
        /// On the street: the chance her cane takes a parked car for hers
        /// (`StreetParameters.wrongCarChance`), and how long she tries its window before moving on, s.
        public var wrongCarChance = 0.0
        public var wrongCarCheck = 8.0
        public init() {}
    }

    /// Which way a passenger on the pavement first walks, before any cue says: `known`, towards
    /// the car (as if the app had told her from the satellite positions, which it does not yet);
    /// `coinToss`, either way along the pavement with even chances.
    public enum FirstDirection: String, Sendable, CaseIterable {
        case known
        case coinToss = "coin"
    }

    public let parameters: Parameters
    public internal(set) var position: Point
    public internal(set) var heading: Double
    /// The cane has found the car: the walker follows the body to the driver's door.
    public internal(set) var atCar = false
    /// The car, as a rectangle around the driver's phone at the origin (its window).
    public let car: CarBody
    public private(set) var confirmAt: Double?
    var rng: SeededRandom
    var targetHeading: Double?
    var slow = false
    var still = false
    /// Turning on the spot for turn-to-find, until "the car is ahead".
    public internal(set) var spinning = false
    var stillUntil = 0.0
    /// Told the driver is coming (or the car is across the street): she stays where she is,
    /// until `heldUntil` (her patience; then she follows the guide's cues again).
    public internal(set) var heldForDriver = false
    var heldUntil = 0.0
    /// Told "stay where you are" at the arrival: she waits for the guide's next instruction,
    /// until `heldUntil`.
    public internal(set) var awaitingGuidance = false
    var lastTurn = -Double.infinity
    var lastEncouraged = 0.0
    /// The last cue or sound that pointed her somewhere ("closer", a sound, "the car is ahead").
    var lastGuidedTowards = -Double.infinity
    /// Headings still to try since the last "closer", relative to where probing began.
    private var probes: [Double] = []
    private var pending: [(time: Double, hint: WalkerHint)] = []

    /// The street, when the walk is on one (nil: the open field, the car at the origin).
    public internal(set) var street: Street?
    /// The driver's device: what "touching" means (the origin on the open field).
    public internal(set) var target = Point(x: 0, y: 0)
    /// On the street: the window the walker makes for once the cane has found the car, how far
    /// the walker has gone in the roadway, and the steps taken there (each a safety event).
    public internal(set) var approach: Point?
    public internal(set) var roadwayMetres = 0.0
    public internal(set) var safetyEvents = 0
    /// Until when a decision at the kerb (step off, or follow it) holds.
    var kerbDecision: (stepOff: Bool, until: Double)?
    /// The kerb she last stepped off (0: the near one, −`Street.roadWidth`: the far one).
    var steppedOffFrom: Double?
    /// Parked cars her cane has found (each taken for hers at most once), and the one she is
    /// trying now, until when.
    var judgedCars: Set<Int> = []
    var wrongCar: (index: Int, until: Double)?
    /// Whether she is at a parked car she took for hers, and how many she has tried.
    public var atWrongCar: Bool { wrongCar != nil }
    public internal(set) var wrongCarsTried = 0

    /// A walker `distance` metres from the car (at the origin), facing roughly towards it.
    public init(distance: Double, parameters: Parameters = Parameters(), rng: SeededRandom) {
        self.parameters = parameters
        self.rng = rng
        let bearing = self.rng.uniform(-Double.pi...Double.pi)
        position = Point(x: 0, y: 0).moved(by: distance, heading: bearing)
        let error = max(-2.5, min(2.5, self.rng.gaussian())) * parameters.headingError
        car = CarBody(orientation: self.rng.uniform(-Double.pi...Double.pi))
        heading = wrapAngle(bearing + .pi + error)
    }

    public var distance: Double { position.distance(to: target) }

    /// A cue heard at `time`; acted upon after the reaction delay.
    public mutating func hear(_ hint: WalkerHint, at time: Double) {
        pending.append((time + parameters.reaction, hint))
    }

    /// Advances the walker by `dt` seconds ending at `time`.
    public mutating func step(to time: Double, dt: Double) {
        while let first = pending.first, first.time <= time {
            pending.removeFirst()
            act(on: first.hint, at: time)
        }
        if heldForDriver, !atCar {
            guard time >= heldUntil else { return }
            // Nobody came: she follows the guide's cues again.
            heldForDriver = false
            lastEncouraged = time
        }
        if awaitingGuidance {
            guard time >= heldUntil else { return }
            setOff(at: time)
        }
        if street != nil {
            stepOnStreet(to: time, dt: dt)
            return
        }
        if atCar {
            // Along the body to the door (the pulse quickens), then the hand closes the last gap.
            reach(towards: Point(x: 0, y: 0), dt: dt)
            return
        }
        guard !turnsOrWaits(to: time, dt: dt) else { return }
        position = position.moved(by: stride(dt: dt), heading: heading)
        if car.distance(from: position) <= parameters.caneReach { atCar = true }
    }

    /// At the car: the feet along the body, then the hand, to `goal`.
    mutating func reach(towards goal: Point, dt: Double) {
        let gap = position.distance(to: goal)
        if gap > parameters.contact {
            let speed = gap > parameters.armReach ? parameters.slowSpeed : parameters.reachSpeed
            position = position.moved(by: min(speed * dt, gap - parameters.contact), heading: position.bearing(to: goal))
        }
        heading = position.bearing(to: goal)
    }

    /// Turning on the spot, turning to a new heading, keeping still, or doubting the heading
    /// (which starts a turn): true when one of them takes this step.
    mutating func turnsOrWaits(to time: Double, dt: Double) -> Bool {
        if spinning {
            heading = wrapAngle(heading + parameters.spinRate * dt)
            return true
        }
        if let goal = targetHeading {
            let delta = wrapAngle(goal - heading)
            let turn = parameters.turnRate * dt
            if abs(delta) <= turn { heading = goal; targetHeading = nil } else { heading = wrapAngle(heading + (delta > 0 ? turn : -turn)) }
            return true
        }
        if still, time < stillUntil { return true }
        still = false
        if !slow, time - max(lastEncouraged, lastTurn) >= parameters.doubt {
            act(on: .away, at: time)
            return true
        }
        return false
    }

    /// Veers and returns how far this step walks, m.
    mutating func stride(dt: Double) -> Double {
        heading = wrapAngle(heading + parameters.veer * dt.squareRoot() * rng.gaussian())
        return (slow ? parameters.slowSpeed : parameters.speed) * dt
    }

    /// "Stay where you are" at the arrival (before any signal): she stands until the guide's
    /// next instruction, or `stayPutPatience` without one.
    public mutating func awaitGuidance(at time: Double) {
        guard !atCar else { return }
        awaitingGuidance = true
        heldUntil = time + parameters.stayPutPatience
    }

    /// The wait for guidance is over: she sets off, her doubt counted from now.
    mutating func setOff(at time: Double) {
        awaitingGuidance = false
        lastEncouraged = time
    }

    mutating func act(on hint: WalkerHint, at time: Double) {
        // Told to stay where she is for the driver: nothing but the touch prompt (or being told
        // again, which renews her patience) moves her.
        if heldForDriver, hint != .touchPrompt, hint != .stayPut { return }
        // Waiting for the guide's next instruction: any cue that says where to go, or that the
        // signal is there ("Signal found. Follow the sound."), sets her off. A sound heard is
        // not one: she notes where it came from and waits for the guide's "Walk towards the
        // sound" (the ladder asks the driver for it while she is told to stay where she is).
        if awaitingGuidance, hint != .keepStill, hint != .stayPut, !hint.isHeardSound { setOff(at: time) }
        switch hint {
        case .towards:
            lastEncouraged = time
            lastGuidedTowards = time
            probes = []
            still = false
        case .away:
            guard !atCar, !spinning, time - lastTurn >= parameters.settle, targetHeading == nil else { return }
            if probes.isEmpty {
                // Just passed the car, or set off wrong: it is to one side, or behind.
                let side: Double = rng.chance(0.5) ? 1 : -1
                probes = [heading + side * .pi / 2, heading - side * .pi / 2, heading + .pi]
            }
            targetHeading = wrapAngle(probes.removeFirst())
            lastTurn = time
            still = false
        case .veryClose:
            slow = true
        case .keepStill:
            // Someone told to keep still waits a while, then tries a few steps anyway; a turn on
            // the spot is over (the guide ended it with the signal).
            spinning = false
            targetHeading = nil
            still = true
            stillUntil = time + parameters.patience
        case .signal:
            still = false
        case .soundFrom(let direction):
            // A heard source beats any RSSI hint: turn to it and walk; the turn also holds off
            // "wrong way" echoes for `settle`, and the sound counts as encouragement.
            guard !atCar else { return }
            spinning = false
            lastEncouraged = time
            lastGuidedTowards = time
            lastTurn = time
            probes = []
            still = false
            targetHeading = abs(wrapAngle(direction - heading)) < 0.05 ? nil : wrapAngle(direction)
        case .turnOnTheSpot:
            guard !atCar else { return }
            spinning = true
            targetHeading = nil
            still = false
        case .carAhead:
            guard spinning else { return }
            spinning = false
            probes = []
            lastEncouraged = time
            lastGuidedTowards = time
            lastTurn = time
        case .walkAlong(let direction):
            // Told which way along the pavement the car is: turn that way and walk; the
            // sentence is encouragement (it comes again while she walks). Not a direction across
            // the road: `lastGuidedTowards` stays, so no kerb is stepped off for it.
            guard !atCar else { return }
            spinning = false
            probes = []
            still = false
            lastEncouraged = time
            lastTurn = time
            targetHeading = abs(wrapAngle(direction - heading)) < 0.05 ? nil : wrapAngle(direction)
        case .stayPut:
            spinning = false
            targetHeading = nil
            awaitingGuidance = false
            heldForDriver = true
            heldUntil = time + parameters.stayPutPatience
        case .touchPrompt:
            spinning = false
            still = true
            stillUntil = .infinity
            if confirmAt == nil { confirmAt = time + parameters.confirmDelay }
        }
    }

    /// The Enter press was made (or rejected): wait for the next prompt.
    public mutating func confirmed() { confirmAt = nil }
}

/// A parked car, 4.6 m by 1.8 m, whose driver holds the phone out of the window: the phone
/// (the origin) is on the driver's side, 1.6 m behind the front.
public struct CarBody: Sendable, Equatable {
    public static let front = 1.6, back = -3.0, width = 1.8
    /// Direction the car points, radians.
    public var orientation: Double

    /// Distance from `point` to the body (0 inside).
    public func distance(from point: Point) -> Double {
        // Into the car's frame: x along the car, y across, body on the y < 0 side.
        let c = cos(-orientation), s = sin(-orientation)
        let x = point.x * c - point.y * s, y = point.x * s + point.y * c
        let dx = max(Self.back - x, 0, x - Self.front)
        let dy = max(-Self.width - y, 0, y)
        return (dx * dx + dy * dy).squareRoot()
    }
}
