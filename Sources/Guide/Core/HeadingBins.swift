import Foundation
import RadioCore

/// Turn-to-find with a compass: the level heard per 10° of heading over the turn, and which
/// headings the turn has swept. Headings are compass degrees (clockwise from north, 0..<360).
///
/// A bin's level is the mean of the raw samples heard while facing it; the car's heading is the
/// first harmonic of the bin means, a + b·cos(θ − φ), as in the timing path: every bin counts
/// once however long the passenger lingered there, and neither a lucky fade in one bin nor the
/// flat front half (no body in the way anywhere there) decides it.
public struct HeadingBins: Sendable, Equatable {
    public static let binWidth = 10.0
    public static let binCount = Int(360 / binWidth)

    private var sums = [Double](repeating: 0, count: binCount)
    private var counts = [Int](repeating: 0, count: binCount)
    private var swept = [Bool](repeating: false, count: binCount)
    private var last: Double?

    public init() {}

    /// The passenger now faces `degrees`: every bin on the shorter arc from the previous heading
    /// counts as swept (a compass reporting at a few hertz skips bins in a steady turn; a jump
    /// of more than 180° between two readings is taken the short way, 350° → 10° through 0°).
    public mutating func turned(to degrees: Double) {
        let to = Self.wrapped(degrees)
        defer { last = to }
        guard let from = last else {
            swept[Self.bin(to)] = true
            return
        }
        let delta = Self.difference(to, from)
        let steps = Int((abs(delta) / Self.binWidth).rounded(.up))
        for step in 0...max(steps, 0) {
            let heading = from + delta * Double(step) / Double(max(steps, 1))
            swept[Self.bin(heading)] = true
        }
    }

    /// A raw sample heard facing `degrees`.
    public mutating func add(rssi: Double, at degrees: Double) {
        guard rssi.isFinite else { return }
        let bin = Self.bin(degrees)
        sums[bin] += rssi
        counts[bin] += 1
    }

    /// Degrees of heading swept in this turn (360 when every bin has been faced).
    public var coveredDegrees: Double { Double(swept.filter { $0 }.count) * Self.binWidth }

    /// The mean level per bin (nil where nothing was heard).
    public var levels: [Double?] { (0..<Self.binCount).map { counts[$0] > 0 ? sums[$0] / Double(counts[$0]) : nil } }

    /// The heading of the strongest signal, degrees, from the bin means' first harmonic; nil
    /// with fewer than 8 bins heard or a flat level (no direction in it).
    public var strongest: Double? {
        let heard = levels.enumerated().compactMap { bin, level in level.map { (Self.centre(bin), $0) } }
        guard heard.count >= 8 else { return nil }
        let mean = heard.map(\.1).reduce(0, +) / Double(heard.count)
        var c = 0.0, s = 0.0
        for (heading, level) in heard {
            let theta = heading * .pi / 180
            c += (level - mean) * cos(theta)
            s += (level - mean) * sin(theta)
        }
        guard (c * c + s * s) > 1e-12 else { return nil }
        return Self.wrapped(atan2(s, c) * 180 / .pi)
    }

    /// `a − b` in −180..<180 degrees: how far `a` is from `b`, signed, the short way.
    public static func difference(_ a: Double, _ b: Double) -> Double {
        let d = wrapped(a - b)
        return d >= 180 ? d - 360 : d
    }

    /// `degrees` in 0..<360.
    public static func wrapped(_ degrees: Double) -> Double { CompassReading.wrapped(degrees) }

    static func bin(_ degrees: Double) -> Int { min(binCount - 1, Int(wrapped(degrees) / binWidth)) }
    static func centre(_ bin: Int) -> Double { (Double(bin) + 0.5) * binWidth }
}
