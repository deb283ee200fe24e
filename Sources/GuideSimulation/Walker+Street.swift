import Foundation

/// The walker on a street (`Street`): the pavements between the building lines and the kerbs,
/// cars nobody walks through, and the kerbs, where a cane finds either a car body or a drop into
/// the road. Every stride taken in the roadway is a safety event; in the roadway she makes for
/// a kerb (back to the one she left, or on across while the guidance keeps pointing there).
extension Walker {
    /// Strides per safety event: one for stepping off, one more per stride in the roadway, m.
    static let stride = 0.7

    /// A walker on `street`'s pavement, `depth` metres from the kerb, `distance` metres in a
    /// straight line from the device at `target` (farther when the pavement is farther than
    /// that from it), on the side `side` (±1 along the street), facing roughly towards it.
    public init(street: Street, target: Point, distance: Double, depth: Double, side: Double,
                parameters: Parameters, rng: SeededRandom) {
        self.init(distance: distance, parameters: parameters, rng: rng)
        self.street = street
        self.target = target
        let across = depth - target.y
        let along = (max(0, distance * distance - across * across)).squareRoot()
        position = Point(x: target.x + side * along, y: depth)
        // She sets off along the pavement: towards the car when she knows which way it is, or
        // either way (`FirstDirection`). The coin is drawn either way: both models walk the same seeds.
        let error = max(-2.5, min(2.5, self.rng.gaussian())) * parameters.headingError
        let coin = self.rng.chance(0.5)
        let towards = parameters.firstDirection == .known ? target.x < position.x : coin
        heading = wrapAngle((towards ? Double.pi : 0) + error)
    }

    /// The driver's device moved (held out of the window).
    mutating func retarget(_ point: Point) { target = point }

    mutating func stepOnStreet(to time: Double, dt: Double) {
        guard let street else { return }
        if atCar {
            // Along the body to the window on the walker's side, then the hand to the phone;
            // round a corner first when the body is in between.
            var goal = target.distance(to: approach ?? target) < parameters.armReach ? target : approach ?? target
            let car = street.car
            if car.intersects(from: position, to: goal) {
                let end = abs(position.x - car.minX) < abs(position.x - car.maxX) ? car.minX - 0.1 : car.maxX + 0.1
                goal = abs(position.x - end) > 0.05 ? Point(x: end, y: position.y) : Point(x: end, y: goal.y)
            }
            reach(towards: goal, dt: dt)
            return
        }
        if tryingWrongCar(street, at: time, dt: dt) { return }
        guard !turnsOrWaits(to: time, dt: dt) else { return }
        if street.inRoadway(position), !crossing(at: time) {
            // In the road with nothing pointing across it: back to the kerb she stepped off.
            heading = (steppedOffFrom ?? 0) < 0 ? -Double.pi / 2 : Double.pi / 2
        }
        let length = stride(dt: dt)
        var next = position.moved(by: length, heading: heading)
        // The building lines: the cane finds the wall, the walker follows it.
        next.y = max(min(next.y, street.nearBuildingLine), street.farBuildingLine)
        if street.car.distance(from: next) <= parameters.caneReach {
            findCar(street, from: next)
            return
        }
        if !street.inRoadway(position),
           let index = street.parked.indices.first(where: { !judgedCars.contains($0) && street.parked[$0].distance(from: next) <= parameters.caneReach }) {
            // The cane finds a parked car's body from the pavement: she may take it for hers.
            judgedCars.insert(index)
            if parameters.wrongCarChance > 0, rng.chance(parameters.wrongCarChance) {
                wrongCar = (index, time + parameters.wrongCarCheck)
                wrongCarsTried += 1
                return
            }
        }
        if street.parked.contains(where: { $0.distance(from: next) < 0.3 }) {
            // A parked car's body: follow it, never through it.
            next = position.moved(by: length, heading: heading.cos >= 0 ? 0 : .pi)
            if street.parked.contains(where: { $0.distance(from: next) < 0.3 }) { return }
        }
        if !street.inRoadway(position), street.inRoadway(next) {
            if decidesToStepOff(street, at: next, time: time) {
                steppedOffFrom = position.y >= 0 ? 0 : -Street.roadWidth
            } else {
                // The cane finds the kerb: follow it the way the walker was heading along it.
                next = Point(x: next.x, y: position.y)
            }
        }
        if street.inRoadway(next) {
            if !street.inRoadway(position) { safetyEvents += 1 }
            let before = roadwayMetres
            roadwayMetres += position.distance(to: next)
            if Int(roadwayMetres / Self.stride) > Int(before / Self.stride) { safetyEvents += 1 }
        }
        position = next
    }

    /// The cane is on the ride's car: make for the window on this side (the driver sits on the
    /// road side; a passenger meets the car at its front passenger window from the pavement).
    mutating func findCar(_ street: Street, from point: Point) {
        atCar = true
        let car = street.car
        let middle = (car.minY + car.maxY) / 2
        let y = point.y >= middle ? car.maxY + 0.05 : car.minY - 0.05
        approach = Point(x: street.kerbWindow.x, y: y)
    }

    /// Still crossing: the guidance or a sound pointed her on within the last 5 s and she
    /// faces across the road (more than 45° off the kerb).
    func crossing(at time: Double) -> Bool {
        abs(sin(heading)) > sin(Double.pi / 4) && time - lastGuidedTowards < 5
    }

    /// At a parked car she took for hers: to its nearest side, where she holds her phone out
    /// and waits for the touch; none comes (no signal step, no "Touch detected"), and after
    /// `wrongCarCheck` she moves on the way she was going. True while she is there.
    mutating func tryingWrongCar(_ street: Street, at time: Double, dt: Double) -> Bool {
        guard let wrong = wrongCar else { return false }
        guard time < wrong.until else {
            wrongCar = nil
            lastEncouraged = time
            return false
        }
        let body = street.parked[wrong.index]
        let side = body.nearestPoint(to: position)
        let gap = position.distance(to: side)
        // Near enough to reach its side, not so near that the body stops her going on along it.
        if gap > 0.35 {
            position = position.moved(by: min(parameters.slowSpeed * dt, gap - 0.35), heading: position.bearing(to: side))
        }
        return true
    }

    /// At the kerb with nothing but road ahead: steps off only when the guidance or a sound
    /// points across the road (heading more than 45° off the kerb) and then only by chance
    /// (`stepOffChance`); a decision holds for 5 s.
    mutating func decidesToStepOff(_ street: Street, at point: Point, time: Double) -> Bool {
        if let decision = kerbDecision, time < decision.until { return decision.stepOff }
        let stepOff = crossing(at: time) && rng.chance(parameters.stepOffChance)
        kerbDecision = (stepOff, time + 5)
        return stepOff
    }
}

private extension Double {
    var cos: Double { Foundation.cos(self) }
}
