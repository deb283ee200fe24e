import BeaconCore
import Phrasebook
import RideSession

/// The passenger's distance as the driver's device says it (issue 22, part 2): the guide's own
/// claim code (`DistanceUncertainty` bounds, `DistanceBands` claims), so the driver hears only
/// what the guide could stand behind: "about 15 meters away", "more than 10 meters away",
/// "within reach", and "getting closer" when a nearer claim replaces a farther one. A new
/// claim once it held `dwell` seconds, at most one every `spacing` seconds.
public struct DriverDistanceClaims: DistanceClaims {
    public var dwell = 1.0
    public var spacing = 5.0
    private let uncertainty: DistanceUncertainty
    private let model: PathLossModel
    private var bands = DistanceBands()
    private var spoken: DistanceBands.Band?
    private var candidate: (band: DistanceBands.Band, since: Double)?
    private var lastSaid = -Double.infinity
    /// The driver's language.
    public var book: Phrasebook = .english

    public init(calibration: Calibration) {
        uncertainty = DistanceUncertainty(calibration: calibration)
        model = calibration.model
    }

    public mutating func claim(_ estimate: RangeEstimate, at time: Double) -> String? {
        let bounds = uncertainty.bounds(level: estimate.filteredRSSI, model: model)
        guard let band = bands.update(distance: estimate.distance, low: bounds.low, high: bounds.high) else {
            candidate = nil
            return nil
        }
        guard band != spoken else {
            candidate = nil
            return nil
        }
        if candidate?.band != band { candidate = (band, time) }
        guard let since = candidate?.since, time - since >= dwell, time - lastSaid >= spacing else { return nil }
        let closer = spoken.map { band < $0 } ?? false
        spoken = band
        lastSaid = time
        candidate = nil
        let words = Self.words(band, in: book)
        return closer ? book(.driverGettingCloser, ["distance": .text(words)]) : words
    }

    static func words(_ band: DistanceBands.Band, in book: Phrasebook = .english) -> String {
        switch band {
        case .veryClose: book(.driverDistanceVeryClose)
        case .about(let n): book(.driverDistanceAbout, ["distance": .count(n)])
        case .moreThan(let n): book(.driverDistanceMoreThan, ["distance": .count(n)])
        }
    }
}
