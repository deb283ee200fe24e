import Guide
import Foundation

/// The simulated channel's parameters fitted to real walking and phone-pair traces
/// (`scripts/fit_channel.py` over ../shared/data; BENCHMARKS.md, "Simulated channel"). The
/// committed fit is `fixtures/channel-fit.json`; `committedJSON` is a verbatim copy of it (a test
/// keeps the two equal), so the simulator needs no file at run time.
public struct ChannelFit: Decodable, Sendable, Equatable {
    public struct PathLoss: Decodable, Sendable, Equatable {
        public var exponentMin: Double
        public var exponentMax: Double
        public var txPowerAt1mMean: Double
        public var txPowerAt1mSd: Double
        enum CodingKeys: String, CodingKey {
            case exponentMin = "exponent_min", exponentMax = "exponent_max"
            case txPowerAt1mMean = "tx_power_at_1m_mean", txPowerAt1mSd = "tx_power_at_1m_sd"
        }
    }
    public struct Shadowing: Decodable, Sendable, Equatable {
        public var sigmaDb: Double
        public var decorrelationM: Double
        enum CodingKeys: String, CodingKey { case sigmaDb = "sigma_db", decorrelationM = "decorrelation_m" }
    }
    public struct FastFading: Decodable, Sendable, Equatable {
        public var sigmaDb: Double
        public var ricianKDb: Double
        enum CodingKeys: String, CodingKey { case sigmaDb = "sigma_db", ricianKDb = "rician_k_db" }
    }
    public struct BodyLoss: Decodable, Sendable, Equatable {
        public var min: Double
        public var max: Double
    }

    public var pathLoss: PathLoss
    public var shadowing: Shadowing
    public var fastFading: FastFading
    public var advertLoss: Double
    public var bodyLossDb: BodyLoss
    enum CodingKeys: String, CodingKey {
        case pathLoss = "path_loss", shadowing, fastFading = "fast_fading", advertLoss = "advert_loss", bodyLossDb = "body_loss_db"
    }

    public static func decode(_ data: Data) throws -> ChannelFit {
        try JSONDecoder().decode(ChannelFit.self, from: data)
    }

    /// The committed fit.
    public static let committed: ChannelFit = {
        do { return try decode(Data(committedJSON.utf8)) } catch { fatalError("the committed channel fit does not decode: \(error)") }
    }()

    /// `fixtures/channel-fit.json`, verbatim.
    public static let committedJSON = #"""
{
 "source": "scripts/fit_channel.py over ../shared/data/philotuxo (9 walks x 6 receivers, 41 static points) and ../shared/data/herald (phone pairs 0-3.4 m)",
 "path_loss": {
  "exponent_min": 1.131,
  "exponent_max": 2.104,
  "tx_power_at_1m_mean": -60.91,
  "tx_power_at_1m_sd": 2.02,
  "static_points_exponent": 2.034,
  "static_points_tx_power_at_1m": -56.55,
  "herald_exponent_median": 0.513,
  "herald_exponent_p10": 0.164,
  "herald_exponent_p90": 1.878,
  "receivers_fitted": 6,
  "herald_traces_fitted": 27
 },
 "walking_residual": {
  "sigma_db": 4.989,
  "autocorrelation_lags_s": [
   0.45,
   0.9,
   1.35,
   1.8,
   2.7,
   3.6,
   5.4
  ],
  "autocorrelation": [
   0.234,
   0.094,
   0.091,
   0.101,
   0.115,
   0.06,
   0.034
  ],
  "autocorrelation_1_over_e_s": 3.729,
  "moved_m": [
   0.2,
   0.45,
   0.8,
   1.25,
   1.85,
   2.6
  ],
  "correlation_by_moved": [
   0.147,
   0.123,
   0.112,
   0.078,
   0.064,
   0.083
  ],
  "pairs_by_moved": [
   5473,
   7935,
   6595,
   5905,
   5866,
   1750
  ],
  "moving_along_line_share": 0.7,
  "walk_speed_m_s": {
   "track-rectangular_with_rotation": 0.42,
   "track-rectangular_without_rotation": 0.419,
   "track-straight_01": 0.332,
   "track-straight_02": 0.351,
   "track-straight_03": 0.449,
   "track-straight_04": 0.993,
   "track-straight_05": 0.123,
   "track-zigzagging_with_rotation": 0.362,
   "track-zigzagging_without_rotation": 0.345
  },
  "correlated_share": 0.146
 },
 "shadowing": {
  "sigma_db": 1.905,
  "decorrelation_m": 2.598
 },
 "fast_fading": {
  "sigma_db": 4.611,
  "rician_k_db": 2.2
 },
 "at_rest": {
  "sigma_db": 2.208,
  "autocorrelation_0_45_0_9_1_8_s": [
   0.269,
   -0.217,
   -0.199
  ]
 },
 "advert_loss": 0.1346,
 "body_loss_db": {
  "min": 10.0,
  "max": 15.0,
  "source": "published 2.4 GHz body-shadowing measurements (BENCHMARKS.md, \"Simulated channel\")"
 }
}
"""#
}

extension ChannelModel.Parameters {
    /// A kerbside world drawn from the fitted ranges: the exponent uniformly over the receivers'
    /// fits, the 1 m level around their mean, shadowing, fast fading and report loss as fitted,
    /// body loss from published measurements.
    public static func calibrated(_ rng: inout SeededRandom, fit: ChannelFit = .committed) -> Self {
        Self(txPowerAt1m: fit.pathLoss.txPowerAt1mMean + fit.pathLoss.txPowerAt1mSd * rng.gaussian(),
             exponent: rng.uniform(fit.pathLoss.exponentMin...fit.pathLoss.exponentMax),
             shadowingSigma: fit.shadowing.sigmaDb,
             shadowingDecorrelation: fit.shadowing.decorrelationM,
             ricianK: pow(10, fit.fastFading.ricianKDb / 10),
             scatterDecorrelationDistance: 0.06,
             scatterDecorrelationTime: 0.5,
             bodyLoss: rng.uniform(fit.bodyLossDb.min...fit.bodyLossDb.max),
             baseLoss: fit.advertLoss,
             sensitivity: -100)
    }
}
