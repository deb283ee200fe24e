import Foundation
import GuideAudio
import RideSession

/// Everything one walk draws for its street (`StreetParameters`): the layout, where the car
/// and its device are, the radio channel (a real phone pair's last metre, outdoor losses), both
/// phones' report processes, the noise and the people's delays.
public struct StreetScene: Sendable {
    public let parameters: StreetParameters
    public let street: Street
    public let channel: ChannelModel.Parameters
    /// The driver's device scanning (hears the passenger) and the passenger's phone scanning.
    public let driverReports: ReportProcess
    public let passengerReports: ReportProcess
    public let carBodyLoss: Double
    public let streetNoise: Double
    public let detectionSNR: Double
    public let closedCarLoss: Double
    public let windowDelay: Double
    /// When (after the cane finds the car) the driver holds the phone out; nil: never.
    public let holdOutDelay: Double?
    public let walkingSpeed: Double
    /// The passenger's phone's loss beyond 1 m for where she carries it (0 in the hand), dB.
    public let carriedLoss: Double
    let start: (depth: Double, side: Double, distance: Double)
    public var straightLine: Double
    /// The walker's parameters before the street's draws (the configuration's: turn pace, first direction).
    let walkerBase: Walker.Parameters

    init(parameters p: StreetParameters, startDistance: Double, walker: Walker.Parameters, rng: inout SeededRandom) {
        parameters = p
        walkerBase = walker
        let roll = rng.unit()
        let placement: CarPlacement = roll < p.kerbShare ? .kerb : roll < p.kerbShare + p.doubleParkedShare ? .doubleParked : .acrossStreet
        let device: DevicePlacement = rng.chance(p.dashboardShare) ? .dashboard : .driverSeat
        street = Street(placement: placement, device: device, pavementWidth: rng.uniform(p.pavementWidth),
                        gaps: p.parkingGaps, occupancy: p.parkingOccupancy, rng: &rng)
        let near = NearField.draw(&rng).atProductPower(lowPowerOffset: p.lowPowerOffset)
        channel = ChannelModel.Parameters(
            txPowerAt1m: near.pair.levelAt1m, exponent: rng.uniform(p.exponent),
            shadowingSigma: rng.uniform(p.shadowingSigma), shadowingDecorrelation: rng.uniform(p.shadowingDecorrelation),
            ricianK: pow(10, rng.uniform(p.ricianKdB) / 10), scatterDecorrelationDistance: 0.06, scatterDecorrelationTime: 0.5,
            bodyLoss: rng.uniform(p.bodyLoss), baseLoss: 0, sensitivity: rng.uniform(p.sensitivity), nearField: near)
        driverReports = ReportProcess.draw(&rng)
        passengerReports = ReportProcess.draw(&rng)
        carBodyLoss = max(0, p.carBodyLossMean + p.carBodyLossSigma * rng.gaussian())
        streetNoise = rng.uniform(p.streetNoise)
        detectionSNR = rng.uniform(p.detectionSNR)
        closedCarLoss = rng.uniform(p.closedCarLoss)
        windowDelay = rng.uniform(p.windowDelay)
        let holdOut = rng.uniform(p.driverHoldOut)
        holdOutDelay = rng.chance(p.driverHoldsOutChance) ? holdOut : nil
        walkingSpeed = rng.uniform(p.walkingSpeed)
        let carried = rng.unit()
        carriedLoss = carried < p.pocketShare ? p.pocketLoss : carried < p.pocketShare + p.backpackShare ? p.backpackLoss : 0
        let depth = rng.uniform(0.5...max(0.5, street.pavementWidth - 0.5))
        let side: Double = rng.chance(0.5) ? 1 : -1
        start = (depth, side, startDistance)
        straightLine = max(startDistance, abs(depth - street.deviceInCar.y))
    }

    /// The sound the driver makes for `instruction` (the device's tick is the locator's), and
    /// its bursts' offsets, s: two short taps on the horn at the car's front; three calls of
    /// her name, raised through the open window or very loud from the kerb after stepping out.
    public func sound(for instruction: LocatorInstruction) -> (sound: StreetSound, offsets: [Double])? {
        let car = street.car
        let front = street.placement == .acrossStreet ? car.maxX : car.minX
        let middle = (car.minY + car.maxY) / 2
        switch instruction {
        case .device:
            return nil
        case .horn:
            return (StreetSound(kind: .horn, levelsAt1m: StreetSounds.levels(total: parameters.hornAt1m, spectrum: StreetSounds.hornSpectrum),
                                burstSeconds: 0.25, source: Point(x: front, y: middle)), [0, 0.5])
        case .voiceWindow:
            return (StreetSound(kind: .raisedVoice, levelsAt1m: StreetSounds.levels(total: parameters.raisedVoice - parameters.openWindowLoss,
                                                                                     spectrum: StreetSounds.speechSpectrum),
                                burstSeconds: 0.8, source: street.kerbWindow), [0, 2, 4])
        case .voiceKerb:
            let kerbY = street.placement == .acrossStreet ? car.minY - Street.kerbGap - 0.3 : 0.3
            return (StreetSound(kind: .shout, levelsAt1m: StreetSounds.levels(total: parameters.shout, spectrum: StreetSounds.speechSpectrum),
                                burstSeconds: 0.8, source: Point(x: street.kerbWindow.x, y: kerbY)), [3, 5, 7])
        }
    }

    /// Where a driver who gets out to walk to the passenger reaches her pavement.
    public var pavementAcross: Point { Point(x: street.kerbWindow.x, y: 0.3) }

    func makeWalker(rng: SeededRandom) -> Walker {
        var parameters = walkerBase
        parameters.speed = walkingSpeed
        parameters.slowSpeed = 0.4 * walkingSpeed
        parameters.stepOffChance = self.parameters.stepOffChance
        parameters.veer = self.parameters.veer
        parameters.reaction = self.parameters.reaction
        parameters.stayPutPatience = self.parameters.stayPutPatience
        parameters.wrongCarChance = self.parameters.wrongCarChance
        parameters.wrongCarCheck = self.parameters.wrongCarCheck
        return Walker(street: street, target: street.deviceInCar, distance: start.distance, depth: start.depth, side: start.side,
                      parameters: parameters, rng: rng)
    }

    /// The band levels of the device's locator tick at 1 m (the product's own tick spectrum
    /// through a phone loudspeaker), less the short burst's temporal-integration penalty.
    public var tickLevels: [Double] { parameters.tickLevels }

    /// How far above its threshold a sound with `levels` (at the listener, dB(A) per band) is
    /// heard over this street's noise: the best band's margin, dB (negative: not heard). For
    /// the tick and the horn.
    public func margin(_ levels: [Double]) -> Double {
        zip(levels, noiseLevels).map { $0 - $1 }.max()! - detectionSNR
    }

    /// This street's traffic noise by band, dB(A).
    public var noiseLevels: [Double] { StreetSounds.levels(total: streetNoise, spectrum: StreetSounds.trafficSpectrum) }

    /// How far above its detection threshold a call with `levels` is, dB: speech is judged
    /// across bands (`SpeechIndex`), heard at `speechDetectionBelowSRT` under the level it
    /// would be understood at half the time.
    public func speechMargin(_ levels: [Double]) -> Double {
        SpeechIndex.margin(levels, noise: noiseLevels, criterion: parameters.speechDetectionSII)
    }

    /// The chance a ride word said at `levels` (at her ear) is heard right over `noise` dB(A)
    /// of traffic at that moment.
    public func wordHeardChance(_ levels: [Double], noise: Double) -> Double {
        let index = SpeechIndex.index(levels, noise: StreetSounds.levels(total: noise, spectrum: StreetSounds.trafficSpectrum))
        return 1 / (1 + exp(-(index - parameters.wordSII) / parameters.wordSIISlope))
    }
}

/// The tick's duration, from the product (`LocatorTick`).
enum LocatorTickShape {
    static let duration = LocatorTick.duration
}

extension SimulatedWorld {
    /// The radio obstacles between the walker's phone and the device: the car's body while the
    /// device is inside it, and the parked cars on the straight line (capped).
    func obstacleLoss(_ scene: StreetScene) -> Double {
        let inCar = walker.target == scene.street.deviceInCar ? scene.carBodyLoss : 0
        let parked = Double(scene.street.parkedCarsBetween(walker.position, walker.target)) * scene.parameters.parkedCarLoss
        let carried = walker.distance > 1 ? scene.carriedLoss : 0
        return inCar + min(parked, scene.parameters.parkedCarsLossCap) + carried
    }

    /// One step on the street: the walker moves, the driver holds the phone out once the
    /// passenger is at the car, each phone's reports come as its real receiver's did.
    mutating func advanceOnStreet() -> (atPassenger: [Reception], atDriver: [Reception]) {
        guard let scene else { return ([], []) }
        let end = time + Self.step
        walker.step(to: end, dt: Self.step)
        if walker.atCar {
            if holdOutAt == nil, driverHoldsOut, let delay = scene.holdOutDelay { holdOutAt = end + delay }
            if let at = holdOutAt, end >= at, walker.target == scene.street.deviceInCar, let window = walker.approach {
                walker.retarget(window)
            }
        }
        if contactAt == nil, walker.distance <= walker.parameters.contact + NearField.tolerance { contactAt = end }
        let loss = obstacleLoss(scene)
        var atPassenger: [Reception] = [], atDriver: [Reception] = []
        while nextAdvert.driver < end {
            if let rssi = toPassenger.receive(at: nextAdvert.driver, receiver: walker.position, facing: walker.heading,
                                              source: walker.target, extraLoss: loss) {
                atPassenger.append(Reception(time: nextAdvert.driver, rssi: rssi))
            }
            nextAdvert.driver += scene.passengerReports.nextInterval(&rng, advertisingInterval: advertisingIntervals.driver,
                                                                      scaling: scene.parameters.reportScaling)
        }
        while nextAdvert.passenger < end {
            if let rssi = toDriver.receive(at: nextAdvert.passenger, receiver: walker.position, facing: walker.heading,
                                           source: walker.target, extraLoss: loss) {
                atDriver.append(Reception(time: nextAdvert.passenger, rssi: rssi))
            }
            nextAdvert.passenger += scene.driverReports.nextInterval(&rng, advertisingInterval: advertisingIntervals.passenger,
                                                                      scaling: scene.parameters.reportScaling)
        }
        time = end
        history.append(walker.distance)
        tickOnStreet(scene, until: end)
        hearSounds(scene, until: end)
        return (atPassenger, atDriver)
    }

    /// The driver says the ride word face to face (raised voice, 1 m, ISO 9921's raised effort):
    /// whether she hears it right over the street's noise at this moment (its L_Aeq moved by
    /// `noiseFluctuation`). The open field has no street noise: always.
    mutating func heardWordRight() -> Bool {
        guard let scene else { return true }
        let noise = scene.streetNoise + scene.parameters.noiseFluctuation * rng.gaussian()
        let voice = StreetSounds.levels(total: scene.parameters.raisedVoice, spectrum: StreetSounds.speechSpectrum)
        return rng.chance(scene.wordHeardChance(voice, noise: noise))
    }

    /// The driver makes `sound` now: its bursts at these offsets, s.
    public mutating func play(_ sound: StreetSound, offsets: [Double]) {
        for offset in offsets { pendingSounds.append((time + offset, sound)) }
        soundsMade.append((time, sound.kind))
    }

    /// The driver carries the device (walking to the passenger).
    public mutating func moveDevice(to point: Point) { walker.retarget(point) }

    /// The driver's sounds due before `end`: each burst heard (or not) over the street.
    mutating func hearSounds(_ scene: StreetScene, until end: Double) {
        let due = pendingSounds.filter { $0.time < end }
        pendingSounds.removeAll { $0.time < end }
        for (time, sound) in due {
            let penalty = 10 * log10(min(1, sound.burstSeconds / scene.parameters.integrationWindow))
            let levels = sound.levels(atDistance: walker.position.distance(to: sound.source), insertionLoss: -penalty)
            let bearing = wrapAngle(walker.position.bearing(to: sound.source) - walker.heading)
            let speech = sound.kind == .raisedVoice || sound.kind == .shout
            let margin = speech ? scene.speechMargin(levels) : scene.margin(levels)
            guard let heard = listener.localise(bearing: bearing, margin: margin) else { continue }
            soundsHeard += 1
            walker.hear(.soundFrom(heading: walker.heading + heard), at: time)
        }
    }

    /// The device's ticks on the street: through the closed car until the driver has opened the
    /// window, then through the open window, then from the driver's hand outside.
    mutating func tickOnStreet(_ scene: StreetScene, until end: Double) {
        playTicks(until: end) { world, _, sinceStart in
            let walker = world.walker
            let inCar = walker.target == scene.street.deviceInCar
            let insertion = !inCar ? 0 : sinceStart < scene.windowDelay ? scene.closedCarLoss : scene.parameters.openWindowLoss
            let distance = walker.position.distance(to: walker.target)
            let levels = scene.tickLevels.map { $0 - 20 * log10(max(distance, 0.3)) - insertion }
            let bearing = wrapAngle(walker.position.bearing(to: walker.target) - walker.heading)
            return world.listener.localise(bearing: bearing, margin: scene.margin(levels))
        }
    }
}
