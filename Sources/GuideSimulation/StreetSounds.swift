import Foundation
import GuideAudio

/// Sounds in the street, by octave band (125 Hz – 4 kHz), A-weighted: what each source gives
/// at 1 m, what the street's noise gives at the kerb, and whether a sound is heard over it
/// (docs/SIMULATOR.md cites each number). Levels are summed in power; detection is per band
/// (the ear listens in the band where the signal stands out most), so a sound whose energy sits
/// where traffic is loud is masked long before one in the 1–4 kHz region.
public enum StreetSounds {
    public static let bands: [Double] = [125, 250, 500, 1000, 2000, 4000]
    /// A-weighting at the band centres, dB (IEC 61672-1).
    static let aWeighting: [Double] = [-16.1, -8.6, -3.2, 0, 1.2, 1.0]
    /// Road traffic noise, octave bands relative to its A-weighted total, from the EN 1793-3
    /// normalised traffic noise spectrum (its third-octave values summed per octave).
    public static let trafficSpectrum: [Double] = normalised([-14.5, -10.2, -7.2, -3.9, -6.4, -11.4])
    /// Long-term speech spectrum, raised effort, A-weighted, relative to the total: ANSI
    /// S3.5-1997 Table 3's spectrum levels (per Hz) over each octave's bandwidth, 250 Hz–4 kHz;
    /// 125 Hz, which the table does not give, 6 dB under 250 Hz (assumed).
    public static let speechSpectrum: [Double] = normalised([-26.0, -12.5, -3.0, -3.0, -7.4, -13.1])
    /// A car horn: UN ECE R28 asks for the level between 1.8 and 3.55 kHz to exceed anything
    /// above it; the lower bands are assumed well under it.
    public static let hornSpectrum: [Double] = normalised([-30, -25, -15, -6, -1, -8])

    /// `relative` shifted so its bands sum (in power) to 0 dB.
    static func normalised(_ relative: [Double]) -> [Double] {
        let total = 10 * log10(relative.reduce(0) { $0 + pow(10, $1 / 10) })
        return relative.map { $0 - total }
    }

    /// Band levels summing to `total` dB(A) with `spectrum`'s shape.
    public static func levels(total: Double, spectrum: [Double]) -> [Double] { spectrum.map { total + $0 } }

    /// The power sum of band levels, dB.
    public static func total(_ levels: [Double]) -> Double { 10 * log10(levels.reduce(0) { $0 + pow(10, $1 / 10) }) }

    /// The product's own locator tick (`LocatorTick.samples`), octave-band energy relative to
    /// its total, unweighted: computed from the very samples the driver's device plays.
    public static let tickSpectrum: [Double] = bandEnergy(of: LocatorTick.samples.map { Double($0) / Double(Int16.max) },
                                                          sampleRate: Double(AudioFormat.sampleRate))

    /// Octave-band energy of `samples`, dB relative to their sum over the bands (a plain DFT:
    /// the tick is a few hundred samples and this runs once).
    public static func bandEnergy(of samples: [Double], sampleRate: Double) -> [Double] {
        let n = samples.count
        var energy = [Double](repeating: 0, count: bands.count)
        for k in 1..<(n / 2) {
            let frequency = Double(k) * sampleRate / Double(n)
            guard let band = bands.firstIndex(where: { frequency >= $0 / 2.0.squareRoot() && frequency < $0 * 2.0.squareRoot() }) else { continue }
            var re = 0.0, im = 0.0
            let w = 2 * Double.pi * Double(k) / Double(n)
            for (i, x) in samples.enumerated() {
                re += x * cos(w * Double(i))
                im -= x * sin(w * Double(i))
            }
            energy[band] += re * re + im * im
        }
        let total = energy.reduce(0, +)
        return energy.map { 10 * log10(max($0 / max(total, 1e-30), 1e-12)) }
    }

    /// A phone loudspeaker playing `spectrum` (unweighted band shape) at full volume: flat
    /// above `cutoff`, falling `slope` dB per octave below it; scaled so that pink noise (equal
    /// energy per octave) through the same speaker gives `maxLevel` dB(A) at 1 m.
    public static func phoneLevels(spectrum: [Double], maxLevel: Double, cutoff: Double, slope: Double) -> [Double] {
        let response = bands.map { $0 >= cutoff ? 0 : -slope * log2(cutoff / $0) }
        let pink = [Double](repeating: -10 * log10(Double(bands.count)), count: bands.count)
        let pinkTotal = total(zip(zip(pink, response), aWeighting).map { $0.0 + $0.1 + $1 })
        return zip(zip(spectrum, response), aWeighting).map { maxLevel - pinkTotal + $0.0 + $0.1 + $1 }
    }
}

/// One sound a passenger may hear: its band levels at 1 m (dB(A)), how long each burst is,
/// and where it comes from.
public struct StreetSound: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The driver's device's locator tick.
        case deviceTick
        /// The driver calling the passenger's name, raised voice, through the open window.
        case raisedVoice
        /// The driver at the kerb, calling out.
        case shout
        /// A double tap on the horn.
        case horn
    }

    public var kind: Kind
    public var levelsAt1m: [Double]
    public var burstSeconds: Double
    public var source: Point

    /// The levels at `distance`, dB(A) per band: spherical spreading from 1 m (no ground or air
    /// absorption, which at these distances is under a decibel), less `insertionLoss`.
    public func levels(atDistance distance: Double, insertionLoss: Double) -> [Double] {
        levelsAt1m.map { $0 - 20 * log10(max(distance, 0.3)) - insertionLoss }
    }
}
