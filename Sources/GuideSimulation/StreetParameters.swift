import Foundation

/// Every number of the street that is not fitted to the shared traces, in one place. Each is
/// either cited (docs/SIMULATOR.md names the source, table or page) or an assumption, named as
/// one there and swept by `GuideBenchmark --sweep`. A range is drawn uniformly once per walk.
public struct StreetParameters: Sendable, Equatable {
    // MARK: The street (assumed: a two-lane urban street with parking on both sides)

    /// Shares of pickups with the car at the kerb on the passenger's side, double-parked beside
    /// a parked car, and at the far kerb across the road (assumed).
    public var kerbShare = 0.7
    public var doubleParkedShare = 0.15
    /// Share of drivers whose device sits on the dashboard rather than at the driver's seat (assumed).
    public var dashboardShare = 0.5
    /// Pavement width, m (assumed: 2 m is the usual minimum for new footways).
    public var pavementWidth: ClosedRange<Double> = 2.0...4.0
    /// Gaps between parked cars, m, and the share of car-length slots that hold a car (assumed).
    public var parkingGaps: ClosedRange<Double> = 0.8...6.0
    public var parkingOccupancy = 0.8

    // MARK: Radio

    /// The car body between the driver's device and the street, dB: 3GPP TR 38.901 (v16),
    /// §7.4.3.2, O2I car penetration loss, mean 9 dB, σ 5 dB, 0.6–60 GHz (clipped at 0).
    public var carBodyLossMean = 9.0
    public var carBodyLossSigma = 5.0
    /// Each parked car on the straight line between the devices, dB, and the most all of them
    /// together take (diffraction over the roofs and reflections from the buildings bring the
    /// signal round): assumed, the car body's own loss per car, capped.
    public var parkedCarLoss = 9.0
    public var parkedCarsLossCap = 15.0
    /// Outdoor path-loss exponent beyond 1 m (assumed: free space is 2; a ground reflection with
    /// both devices about 1 m up steepens it towards 4 only past about 30 m).
    public var exponent: ClosedRange<Double> = 1.8...2.6
    /// Slow shadowing (σ, dB; decorrelation distance, m) and the direct path's Rician K, dB
    /// (assumed; the indoor corridor fit, 1.9 dB / 2.6 m / 2.2 dB in fixtures/channel-fit.json,
    /// lies inside these ranges).
    public var shadowingSigma: ClosedRange<Double> = 2.0...6.0
    public var shadowingDecorrelation: ClosedRange<Double> = 1.5...5.0
    public var ricianKdB: ClosedRange<Double> = 0.0...9.0
    /// The passenger's body between phone and car, dB (published 2.4 GHz body-shadowing
    /// measurements, as the corridor fit used).
    public var bodyLoss: ClosedRange<Double> = 10.0...15.0
    /// Where the passenger carries her phone while guided: most in the hand (the guide is
    /// listened to through it), some in a trouser pocket or a bag with earphones (shares
    /// assumed); the pocket's and the bag's loss against the hand beyond 1 m are fitted on the
    /// carried-phone traces (fixtures/carried-fit.json, Benchmarks/CarriedRanging/fit_carried.py:
    /// 14.4 and 12.7 dB). Within a metre she holds it out for the touch.
    public var pocketShare = 0.1
    public var backpackShare = 0.1
    public var pocketLoss = 14.4
    public var backpackLoss = 12.7
    /// The weakest level the scanning phone reports, dBm, drawn per walk: from the 0.1th
    /// percentile of what the shared sets' receivers reported (herald −96, philotuxo −95) to
    /// that of the carried phones (pcng −111); `scripts/report_floor.py` prints them.
    public var sensitivity: ClosedRange<Double> = -111.0...(-95.0)
    /// The product's own transmit power (issue 34): herald's Android transmitters advertised at
    /// low power, the product at the highest its controller has. Their offset to normal power
    /// is fitted on the receivers that heard both kinds: P2 heard the iPhone transmitters at a
    /// median 1 m level of −59.1 dBm and the Android ones at −72.5 (13.4 dB), the Denmark
    /// iPhone −55.5 and −75.2 (19.7 dB); their mean, 16.5 dB, matches Android's own LOW (−15
    /// dBm) to HIGH (+1 dBm) step. Swept from 0 (herald as recorded) to 20.
    public var lowPowerOffset = 16.5
    /// How a receiver's report rate follows the transmitter's advertising rate (exponent on the
    /// interval ratio; `ReportProcess.nextInterval`): 1, a fixed share of the advertising
    /// events is heard (assumed; over Bumble 20 ms gave 4.8 times the reports of 100 ms,
    /// `FastAdvertisingOverBumbleTests`), 0, fast advertising gains nothing. Swept 0, 0.5, 1.
    public var reportScaling = 1.0

    // MARK: Sounds (dB(A) at 1 m unless said)

    /// A phone loudspeaker at full volume, pink noise at 1 m, dB(A) (assumed: no published
    /// measurement found; reviewers' 1 m peak readings are said to be 75–85), and its
    /// low-frequency roll-off: cut-off, Hz (one published response is flat from 260 Hz; small
    /// speakers are usually weaker, assumed 500), slope, dB/octave (assumed, a sealed box's 12).
    public var phoneMaxLevel = 75.0
    public var phoneCutoff = 500.0
    public var phoneRollOff = 12.0
    /// A driver's voice at 1 m, dB(A), from ISO 9921:2003's vocal-effort table: raised (66)
    /// through the window, very loud (78) calling out at the kerb (shouting is 84).
    public var raisedVoice = 66.0
    public var shout = 78.0
    /// A horn: at least 93 dB(A) at 7 m in front of the vehicle (UN ECE Regulation 28, Part II,
    /// the vehicle's audible signal), so 110 at 1 m.
    public var hornAt1m = 93.0 + 20 * log10(7)
    /// A closed car between a sound inside it and the kerb, dB (assumed: 25–35 dB is the usual
    /// range of a passenger car's sound insulation).
    public var closedCarLoss: ClosedRange<Double> = 25.0...35.0
    /// A voice calling through the open window from inside, dB (a stand-in: open windows of
    /// houses, median 10 dB, Locher et al. 2018, IJERPH 15(1):149).
    public var openWindowLoss = 10.0
    /// Street noise at the kerb, LAeq dB(A): a quiet side street to a busy road (assumed range;
    /// kerbside levels sit above the façade levels noise maps give).
    public var streetNoise: ClosedRange<Double> = 60.0...75.0
    /// A band is heard when the signal is this far above the noise in it, dB (assumed: the
    /// critical ratio of a tone in noise is about −4 dB in a critical band; an octave is wider).
    /// The tick and the horn are judged so; speech is judged across bands (below).
    public var detectionSNR: ClosedRange<Double> = -6.0...0.0
    /// Speech across bands (`SpeechIndex`, the ANSI S3.5-1997 SII): sentences are understood
    /// half the time at −5 dB SNR in speech-shaped noise, and each dB there is worth 18 %
    /// (Plomp 1986, citing Duquesnoy 1983), which is SII 0.31 with a slope of 0.044 per unit.
    public var wordSII = 0.31
    public var wordSIISlope = 0.044
    /// A call is heard (detected, which is all a passenger told "Ben is calling you" needs) this
    /// many dB below the level at which it would be understood half the time (assumed: the
    /// clinical rule puts the speech detection threshold 5–10 dB under the recognition one).
    public var speechDetectionBelowSRT = 8.0
    /// The street's level moves from moment to moment around its L_Aeq: σ, dB, drawn for each
    /// ride word said (assumed; passing vehicles make it fluctuate by several dB).
    public var noiseFluctuation = 4.0
    /// Bursts shorter than this are heard as if `10 log10(duration / window)` quieter (the ear's
    /// temporal integration, about 200 ms).
    public var integrationWindow = 0.2

    // MARK: People

    /// How long after the passenger's cane finds the car the driver, who sees her, holds the
    /// phone out of the window nearest to her, s (assumed).
    public var driverHoldOut: ClosedRange<Double> = 2.0...8.0
    /// The chance the driver, seeing her at the car, holds the phone out at all (assumed).
    public var driverHoldsOutChance = 0.9
    /// How long the driver takes to open the window after a sound is asked for, s (assumed).
    public var windowDelay: ClosedRange<Double> = 3.0...10.0
    /// Walking speed, m/s: blind pedestrians with a long cane walk slower than sighted ones'
    /// 1.2–1.4 m/s (assumed range; the ratio is over the same walker's straight line).
    public var walkingSpeed: ClosedRange<Double> = 0.8...1.2
    /// Heading drift walking without sight, rad/√s (assumed: blind walkers veer by a random
    /// error each step, Kallie, Schrater & Legge 2007, who give no rate in a usable form), and
    /// the delay from hearing a cue to acting on it, s (assumed: simple auditory reaction is
    /// 0.19–0.28 s; turning and setting off take longer).
    public var veer = 0.06
    public var reaction = 0.5
    /// Chance a walker whose cane finds the kerb with no car there steps into the road when the
    /// guidance or a sound points across it (assumed).
    public var stepOffChance = 0.5
    /// How long she obeys "stay where you are" (at the arrival, before any signal; or for a
    /// driver said to be coming) without another instruction or the driver, s (assumed).
    public var stayPutPatience = 120.0
    /// The chance her cane takes a parked car it finds from the pavement for hers, and how long
    /// she tries its window (no touch comes) before moving on, s (both assumed).
    public var wrongCarChance = 0.2
    public var wrongCarCheck = 8.0

    public init() {}

    /// The values `--sweep NAME` moves to (low, mid, high); mid is the default.
    public static let sweeps: [(name: String, set: @Sendable (inout StreetParameters, Double) -> Void, values: [Double])] = [
        ("car-body-loss", { $0.carBodyLossMean = $1 }, [4, 9, 14]),
        ("parked-car-loss-cap", { $0.parkedCarsLossCap = $1 }, [6, 15, 25]),
        ("exponent-mid", { $0.exponent = ($1 - 0.4)...($1 + 0.4) }, [1.8, 2.2, 2.6]),
        ("shadowing-sigma-mid", { $0.shadowingSigma = ($1 - 2)...($1 + 2) }, [2, 4, 6]),
        ("phone-max-level", { $0.phoneMaxLevel = $1 }, [65, 75, 85]),
        ("phone-cutoff", { $0.phoneCutoff = $1 }, [260, 500, 1000]),
        ("street-noise-mid", { $0.streetNoise = ($1 - 7.5)...($1 + 7.5) }, [60, 67.5, 75]),
        ("detection-snr-mid", { $0.detectionSNR = ($1 - 3)...($1 + 3) }, [-6, -3, 0]),
        ("kerb-share", { $0.kerbShare = $1; $0.doubleParkedShare = (1 - $1) / 2 }, [0.5, 0.7, 0.9]),
        ("driver-hold-out-mid", { $0.driverHoldOut = max(0, $1 - 3)...($1 + 3) }, [2, 5, 10]),
        ("sensitivity-mid", { $0.sensitivity = ($1 - 8)...($1 + 8) }, [-111, -103, -95]),
        ("dashboard-share", { $0.dashboardShare = $1 }, [0, 0.5, 1]),
        ("carried-share", { $0.pocketShare = $1 / 2; $0.backpackShare = $1 / 2 }, [0, 0.2, 0.5]),
        ("parking-occupancy", { $0.parkingOccupancy = $1 }, [0.5, 0.8, 1.0]),
        ("rician-k-mid-db", { $0.ricianKdB = max(0, $1 - 4.5)...($1 + 4.5) }, [2, 4.5, 9]),
        ("window-delay-mid", { $0.windowDelay = max(0, $1 - 3.5)...($1 + 3.5) }, [3.5, 6.5, 12]),
        ("driver-holds-out-chance", { $0.driverHoldsOutChance = $1 }, [0.7, 0.9, 1.0]),
        ("veer", { $0.veer = $1 }, [0.03, 0.06, 0.12]),
        ("reaction", { $0.reaction = $1 }, [0.3, 0.5, 1.0]),
        ("step-off-chance", { $0.stepOffChance = $1 }, [0.2, 0.5, 0.8]),
        ("walking-speed-mid", { $0.walkingSpeed = ($1 - 0.2)...($1 + 0.2) }, [0.8, 1.0, 1.2]),
        ("stay-put-patience", { $0.stayPutPatience = $1 }, [60, 120, 240]),
        ("wrong-car-chance", { $0.wrongCarChance = $1 }, [0, 0.2, 0.5]),
        ("wrong-car-check", { $0.wrongCarCheck = $1 }, [4, 8, 16]),
        ("word-sii", { $0.wordSII = $1 }, [0.2, 0.31, 0.45]),
        ("noise-fluctuation", { $0.noiseFluctuation = $1 }, [0, 4, 8]),
        ("speech-detection-below-srt", { $0.speechDetectionBelowSRT = $1 }, [4, 8, 12]),
        ("low-power-offset", { $0.lowPowerOffset = $1 }, [0, 16.5, 20]),
        // The default, 1, is the high end: no receiver gains more than the events it is sent.
        ("report-scaling", { $0.reportScaling = $1 }, [0, 0.5, 1]),
    ]
}
