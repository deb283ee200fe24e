import Foundation
import RideSession

/// How the simulated driver behaves (`--driver`): the person behind `DriverCore`.
public enum DriverMode: String, Sendable, CaseIterable {
    /// Answers a sound request within seconds, makes the sound, walks to the passenger once he
    /// sees her or learns she is across the street, says the ride word when asked.
    case helpful
    /// Answers late or not at all, comes only when told the car is across the street or after
    /// a long wait; says the ride word when asked at the window.
    case busy
    /// Never answers the app, never leaves the car; talks only face to face (the ride word).
    case silent
    /// The product before issue 22: the device's tick is the only sound, played by itself; the
    /// driver holds the phone out of the window when the passenger is at the car, and that is all.
    case legacy

    public static let usage = "--driver must be one of " + allCases.map(\.rawValue).joined(separator: ", ")
}

/// The driver's delays and chances per mode: all assumptions (docs/SIMULATOR.md), swept by
/// `GuideBenchmark --sweep`; the walking speed is cited.
public struct DriverBehaviour: Sendable, Equatable {
    /// Chance a sound request is answered (y or n) at all, and the delay, s.
    public var answerChance: Double
    public var answerDelay: ClosedRange<Double>
    /// Of the answers, the share that is "I can't" rather than the sound.
    public var cannotShare: Double
    /// Walks to the passenger once she is within sight (a white cane on the pavement), m, after
    /// this delay, s; nil: only when told the car is across the street, or after `comesAfter`.
    public var seesWithin: Double?
    public var comeDelay: ClosedRange<Double>
    public var comesAfter: Double?
    /// Comes at all when told the car is across the street.
    public var comesWhenAcross: Bool
    /// Extra time to cross the road at a safe place (or drive round), s.
    public var crossingDetour: ClosedRange<Double>
    /// Sighted walking speed, m/s (Knoblauch et al. 1996: 1.25 m/s, younger pedestrians' 15th
    /// percentile; the older's is 0.97).
    public var walkingSpeed = 1.25
    /// Says the ride word when asked at the window (or beside her).
    public var saysWord: Bool
    /// Uses the app at all (answers, keys); false: silent or legacy.
    public var usesApp: Bool

    public static func of(_ mode: DriverMode) -> DriverBehaviour {
        switch mode {
        case .helpful:
            DriverBehaviour(answerChance: 0.95, answerDelay: 2...6, cannotShare: 0.05, seesWithin: 20, comeDelay: 3...10,
                            comesAfter: 60, comesWhenAcross: true, crossingDetour: 30...90, saysWord: true, usesApp: true)
        case .busy:
            DriverBehaviour(answerChance: 0.5, answerDelay: 6...25, cannotShare: 0.3, seesWithin: nil, comeDelay: 10...30,
                            comesAfter: 150, comesWhenAcross: true, crossingDetour: 60...150, saysWord: true, usesApp: true)
        case .silent:
            DriverBehaviour(answerChance: 0, answerDelay: 0...0, cannotShare: 0, seesWithin: nil, comeDelay: 0...0,
                            comesAfter: nil, comesWhenAcross: false, crossingDetour: 0...0, saysWord: true, usesApp: false)
        case .legacy:
            DriverBehaviour(answerChance: 0, answerDelay: 0...0, cannotShare: 0, seesWithin: nil, comeDelay: 0...0,
                            comesAfter: nil, comesWhenAcross: false, crossingDetour: 0...0, saysWord: false, usesApp: false)
        }
    }
}

/// The simulated driver: presses `DriverCore`'s keys when the behaviour says, makes the sounds
/// it answered with, gets out and walks to the passenger. Its own random stream.
public struct SimulatedDriver: Sendable {
    public let mode: DriverMode
    public let behaviour: DriverBehaviour
    private var rng: SeededRandom
    /// Keys to press: when and which.
    private(set) var keys: [(time: Double, key: DriverKey)] = []
    /// The instruction being answered (what sound "y" makes).
    private(set) var instruction: LocatorInstruction?
    /// Decided to come to the passenger, from this time (after getting out or crossing).
    public private(set) var comingFrom: Double?
    /// Where the driver is while walking (nil: in the car).
    public private(set) var position: Point?
    public private(set) var sawPassengerAt: Double?
    /// The ride word is to be said at this time (asked for at the window).
    private(set) var wordAt: Double?

    public init(mode: DriverMode, behaviour: DriverBehaviour? = nil, seed: UInt64) {
        self.mode = mode
        self.behaviour = behaviour ?? .of(mode)
        rng = SeededRandom(seed: seed ^ 0xD21_7E25)
    }

    /// DriverCore's words to the driver for a sound request: answered (or not) after a delay.
    mutating func asked(_ instruction: LocatorInstruction, at time: Double) {
        self.instruction = instruction
        guard behaviour.usesApp, instruction != .device, rng.chance(behaviour.answerChance) else { return }
        let key: DriverKey = rng.chance(behaviour.cannotShare) ? .cannot : .done
        keys.append((time + rng.uniform(behaviour.answerDelay), key))
    }

    /// The keys due by `time`.
    mutating func keysDue(at time: Double) -> [DriverKey] {
        let due = keys.filter { $0.time <= time }.map(\.key)
        keys.removeAll { $0.time <= time }
        return due
    }

    /// Decides to walk over: presses "I'm coming" after `delay`, and is on the pavement after
    /// getting out (and crossing, when the car is across the street).
    mutating func decideToCome(at time: Double, across: Bool) {
        guard comingFrom == nil, behaviour.usesApp else { return }
        let press = time + rng.uniform(behaviour.comeDelay)
        keys.append((press, .coming))
        comingFrom = press + 3 + (across ? rng.uniform(behaviour.crossingDetour) : 0)
    }

    /// The passenger is in sight (within `seesWithin`, and `inSight`: no parked car between
    /// them), or waited long enough. Seeing her across the road, he says so (x) and comes round.
    mutating func look(at time: Double, passengerDistance: Double, inSight: Bool, sinceArrival: Double, across: Bool) {
        if let within = behaviour.seesWithin, passengerDistance <= within, inSight, sawPassengerAt == nil {
            sawPassengerAt = time
            if across { keys.append((time + rng.uniform(behaviour.comeDelay), .across)) }
            decideToCome(at: time, across: across)
        }
        if let after = behaviour.comesAfter, sinceArrival >= after { decideToCome(at: time, across: false) }
    }

    /// His device told him where she is by the satellite fixes (issue 35): a driver who looks
    /// at the app (helpful) comes to her at once; he knows no more than that sentence and what
    /// he sees. The road is crossed (the detour) when the car really is across.
    mutating func toldWhere(at time: Double, across: Bool) {
        guard behaviour.seesWithin != nil else { return }
        decideToCome(at: time, across: across)
    }

    /// Told the car is across the street from the passenger.
    mutating func toldAcross(at time: Double) {
        guard behaviour.comesWhenAcross else { return }
        decideToCome(at: time, across: true)
    }

    /// Walks `dt` towards the passenger at `passenger`, starting at `from` (on the pavement
    /// across from the car) once `comingFrom` has passed. Returns where the device is now,
    /// nil while the driver is still in the car (or crossing).
    mutating func walk(to passenger: Point, from pavement: Point, at time: Double, dt: Double) -> Point? {
        guard let from = comingFrom, time >= from else { return nil }
        var here = position ?? pavement
        let gap = here.distance(to: passenger)
        // Beside her, the phone held to hers.
        let stop = NearField.touching
        if gap > stop { here = here.moved(by: min(behaviour.walkingSpeed * dt, gap - stop), heading: here.bearing(to: passenger)) }
        position = here
        return here
    }

    /// Asked for the ride word face to face: said a moment later (by every driver who talks).
    mutating func askedForWord(at time: Double) {
        guard behaviour.saysWord, wordAt == nil else { return }
        wordAt = time + rng.uniform(1...3)
    }

    /// She did not catch it and asks again: said again a moment later.
    mutating func repeatWord(at time: Double) {
        guard behaviour.saysWord else { return }
        wordAt = time + rng.uniform(1...3)
    }

    /// Whether the word is said by `time` (once).
    mutating func saysWord(by time: Double) -> Bool {
        guard let at = wordAt, time >= at else { return false }
        wordAt = .infinity
        return true
    }
}
