import Foundation

/// An axis-aligned box on the ground, metres (car bodies in the street's frame).
public struct Box: Sendable, Equatable {
    public var minX: Double, maxX: Double, minY: Double, maxY: Double

    public init(minX: Double, maxX: Double, minY: Double, maxY: Double) {
        self.minX = minX; self.maxX = maxX; self.minY = minY; self.maxY = maxY
    }

    public func contains(_ p: Point) -> Bool { p.x > minX && p.x < maxX && p.y > minY && p.y < maxY }

    /// Distance from `p` to the box (0 inside).
    public func distance(from p: Point) -> Double {
        let dx = max(minX - p.x, 0, p.x - maxX), dy = max(minY - p.y, 0, p.y - maxY)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The point of the box's outline nearest to `p`.
    public func nearestPoint(to p: Point) -> Point {
        Point(x: min(max(p.x, minX), maxX), y: min(max(p.y, minY), maxY))
    }

    /// Whether the segment from `a` to `b` passes through the box (Liang–Barsky clipping).
    public func intersects(from a: Point, to b: Point) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - minX), (dx, maxX - a.x), (-dy, a.y - minY), (dy, maxY - a.y)] {
            if p == 0 {
                if q < 0 { return false }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                if t0 > t1 { return false }
            }
        }
        return true
    }
}

/// Where the ride's car stopped.
public enum CarPlacement: String, Sendable, CaseIterable {
    /// In a gap at the kerb on the passenger's side: its kerb-side windows reachable from the pavement.
    case kerb
    /// Beside a parked car, in the traffic lane: reaching its door means stepping into the road.
    case doubleParked
    /// At the far kerb, across the road.
    case acrossStreet
}

/// Where the driver's device is.
public enum DevicePlacement: String, Sendable, CaseIterable {
    /// In the driver's hand or a holder at the driver's seat (road side, right-hand traffic).
    case driverSeat
    /// On the dashboard, in the middle.
    case dashboard
}

/// A street with the pickup in it: a pavement between a building line and the kerb, a parking
/// lane of parked cars with gaps, two traffic lanes, and a far parking lane. The frame: x along
/// the street, y across; the kerb at y = 0, the pavement at 0…`pavementWidth`, the roadway below
/// 0. Right-hand traffic: the car at the near kerb points towards −x, so its driver sits on the
/// road side and the passenger's doors face the pavement. Nobody walks through a car.
public struct Street: Sendable {
    public static let carLength = 4.5, carWidth = 1.8
    /// From the kerb to the near side of a parked car's body, m.
    public static let kerbGap = 0.2
    public static let parkingLane = 2.2, trafficLanes = 7.0

    public let pavementWidth: Double
    /// From the near kerb to the far one (both parking lanes and the traffic lanes), m: the
    /// roadway is 0 > y > −`roadWidth`, the far pavement (as wide as the near one) beyond it.
    public static let roadWidth = parkingLane + trafficLanes + parkingLane
    public let placement: CarPlacement
    public let device: DevicePlacement
    /// The ride's car.
    public let car: Box
    /// The other parked cars, near and far side.
    public let parked: [Box]
    /// The driver's device while it stays in the car, and at the window nearest the pavement.
    public let deviceInCar: Point
    public let kerbWindow: Point
    /// Where the driver sits (his eyes, for whether he sees her).
    public let driverSeat: Point

    /// Draws a street around the pickup: parked cars with gaps of `gaps` metres ahead and
    /// behind along 120 m of kerb on both sides (the ride's car in one of them).
    public init(placement: CarPlacement, device: DevicePlacement, pavementWidth: Double,
                gaps: ClosedRange<Double>, occupancy: Double, rng: inout SeededRandom) {
        self.pavementWidth = pavementWidth
        self.placement = placement
        self.device = device
        let nearY = (min: -Self.kerbGap - Self.carWidth, max: -Self.kerbGap)
        let farY = (min: -Self.parkingLane - Self.trafficLanes - Self.parkingLane + Self.kerbGap,
                    max: -Self.parkingLane - Self.trafficLanes - Self.parkingLane + Self.kerbGap + Self.carWidth)
        let body: Box
        switch placement {
        case .kerb: body = Box(minX: -Self.carLength / 2, maxX: Self.carLength / 2, minY: nearY.min, maxY: nearY.max)
        case .doubleParked:
            body = Box(minX: -Self.carLength / 2, maxX: Self.carLength / 2,
                       minY: -Self.parkingLane - 0.3 - Self.carWidth, maxY: -Self.parkingLane - 0.3)
        case .acrossStreet: body = Box(minX: -Self.carLength / 2, maxX: Self.carLength / 2, minY: farY.min, maxY: farY.max)
        }
        car = body
        // The car points −x at the near kerb (+x at the far one); its front is 0.9 m of bonnet.
        let towardsFront: Double = placement == .acrossStreet ? 1 : -1
        let seatX = towardsFront * 0.3, dashX = towardsFront * 1.3
        let roadSide = placement == .acrossStreet ? body.maxY - 0.45 : body.minY + 0.45
        let middle = (body.minY + body.maxY) / 2
        driverSeat = Point(x: seatX, y: roadSide)
        deviceInCar = device == .driverSeat ? driverSeat : Point(x: dashX, y: middle)
        // The front passenger window on the pavement's side (the far side's kerb is at its minY).
        let kerbSideY = placement == .acrossStreet ? body.minY - 0.05 : body.maxY + 0.05
        kerbWindow = Point(x: seatX, y: kerbSideY)

        var boxes: [Box] = []
        for lane in [nearY, farY] {
            let isNear = lane == nearY
            // What stands at x = 0 in this lane: the ride's car, the car it is double-parked
            // beside, or nothing in particular (the fill starts at a random point).
            var anchor: (minX: Double, maxX: Double)
            if isNear == (placement != .acrossStreet), placement != .doubleParked {
                anchor = (body.minX, body.maxX)
            } else if isNear, placement == .doubleParked {
                let beside = Box(minX: body.minX - 0.5, maxX: body.maxX - 0.5, minY: lane.min, maxY: lane.max)
                boxes.append(beside)
                anchor = (beside.minX, beside.maxX)
            } else {
                let offset = rng.uniform(0...Self.carLength)
                anchor = (offset, offset)
            }
            for direction in [-1.0, 1.0] {
                var edge = direction < 0 ? anchor.minX : anchor.maxX
                while abs(edge) < 60 {
                    let start = edge + direction * rng.uniform(gaps)
                    let end = start + direction * Self.carLength
                    if rng.chance(occupancy) {
                        boxes.append(Box(minX: min(start, end), maxX: max(start, end), minY: lane.min, maxY: lane.max))
                    }
                    edge = end
                }
            }
        }
        parked = boxes
    }

    /// Whether `p` is in the roadway (between the near kerb and the far one).
    public func inRoadway(_ p: Point) -> Bool { p.y < 0 && p.y > -Self.roadWidth }

    /// The building lines: the near one 0.3 m inside the near pavement, the far one as far
    /// beyond the far kerb.
    public var nearBuildingLine: Double { pavementWidth - 0.3 }
    public var farBuildingLine: Double { -Self.roadWidth - pavementWidth + 0.3 }

    /// Whether someone at `a` sees someone at `b`: no parked car's body on the line between
    /// them (a driver sits lower than the roofs; assumed, docs/SIMULATOR.md).
    public func inSight(_ a: Point, _ b: Point) -> Bool { !parked.contains { $0.intersects(from: a, to: b) } }

    /// Whether `p` is inside any car body (the ride's or a parked one).
    public func insideACar(_ p: Point) -> Bool { car.contains(p) || parked.contains { $0.contains(p) } }

    /// How many parked cars' bodies the straight line from `a` to `b` passes through.
    public func parkedCarsBetween(_ a: Point, _ b: Point) -> Int {
        parked.reduce(0) { $0 + ($1.intersects(from: a, to: b) ? 1 : 0) }
    }
}

extension CarPlacement {
    /// As the transcript says it.
    public var sentence: String {
        switch self {
        case .kerb: "at the kerb"
        case .doubleParked: "double-parked beside a parked car"
        case .acrossStreet: "across the street"
        }
    }
}

extension DevicePlacement {
    public var sentence: String {
        switch self {
        case .driverSeat: "at the driver's seat"
        case .dashboard: "on the dashboard"
        }
    }
}
