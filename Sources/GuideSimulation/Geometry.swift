import Guide
import Foundation

/// A point on the ground, metres. The simulated car's beacon is at the origin.
public struct Point: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    public var length: Double { (x * x + y * y).squareRoot() }
    public func distance(to other: Point) -> Double { Point(x: other.x - x, y: other.y - y).length }
    /// Bearing of `other` seen from here, radians.
    public func bearing(to other: Point) -> Double { atan2(other.y - y, other.x - x) }
    public func moved(by distance: Double, heading: Double) -> Point {
        Point(x: x + distance * cos(heading), y: y + distance * sin(heading))
    }
}

/// `angle` folded into (−π, π].
public func wrapAngle(_ angle: Double) -> Double {
    var a = angle.truncatingRemainder(dividingBy: 2 * .pi)
    if a > .pi { a -= 2 * .pi }
    if a <= -.pi { a += 2 * .pi }
    return a
}
