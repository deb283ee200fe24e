/// The outcome of one simulated walk, in the shape `ridebeacon demo --json` prints.
public struct WalkSummary: Codable, Equatable, Sendable {
    public var confirmed: Bool
    public var secondsTo1m: Double?
    public var secondsToConfirm: Double?
    /// When the passenger was told "Touch detected" (issue 16's "time to touch"); the ratio
    /// above counts on to the confirmation, through the Enter press and both proofs.
    public var secondsToTouch: Double? = nil
    public var straightLineSeconds: Double
    /// Cue counts by kind (earcon name, or "say:" + phrase key).
    public var cues: [String: Int]
    public var wrongDirectionCues: Int
    /// Locator requests the ride service took, and the ticks the car played and the walker heard.
    public var locatorRequests = 0
    public var locatorTicksPlayed = 0
    public var locatorTicksHeard = 0
    public var seed: UInt64
    /// Spoken distances ("About 6 meters", "More than 20 meters", "Very close") and how many of
    /// them were within 2× of the true distance when spoken (`SpokenTruth`).
    public var spokenDistances = 0
    public var spokenDistancesWithin2x = 0
    /// Contradictions by the strict reading (`SpokenTruth`).
    public var contradictions = 0
    /// Spoken distance claims true by the strict reading (`SpokenDistance.isTrue`).
    public var spokenClaimsTrue = 0
    /// Steps into the roadway (the street only).
    public var safetyEvents = 0
    /// When the phones first touched (the street only; the open field touches at "reach").
    public var secondsToContact: Double? = nil
    /// Where the car stopped (the street only).
    public var placement: String? = nil
    /// How the ride was confirmed ("touch" or "word"), whether the ride word was offered,
    /// sounds the guide announced and those of them no sound was made for, and when the driver
    /// reached the pavement to walk over (issue 22).
    public var confirmedBy: String? = nil
    public var rideWordOffered = false
    public var soundsAnnounced = 0
    public var soundsAnnouncedNotMade = 0
    public var secondsDriverOut: Double? = nil
    /// The guide judged the car across the street when it was not (the street only).
    public var acrossJudgedWrongly = false
    /// Times she did not catch the ride word over the street and asked again, and parked cars
    /// her cane took for hers (the street only; issue 34).
    public var rideWordMisheard = 0
    public var wrongCarsTried = 0
    /// Vibrations by pattern (`HapticEvent`), when the walk's haptics are on or only (nil: off).
    public var haptics: [String: Int]? = nil

    enum CodingKeys: String, CodingKey {
        case confirmed
        case secondsTo1m = "seconds_to_1m"
        case secondsToConfirm = "seconds_to_confirm"
        case secondsToTouch = "seconds_to_touch"
        case straightLineSeconds = "straight_line_seconds"
        case cues
        case wrongDirectionCues = "wrong_direction_cues"
        case locatorRequests = "locator_requests"
        case locatorTicksPlayed = "locator_ticks_played"
        case locatorTicksHeard = "locator_ticks_heard"
        case seed
        case spokenDistances = "spoken_distances"
        case spokenDistancesWithin2x = "spoken_distances_within_2x"
        case contradictions
        case spokenClaimsTrue = "spoken_claims_true"
        case safetyEvents = "safety_events"
        case secondsToContact = "seconds_to_contact"
        case placement
        case confirmedBy = "confirmed_by"
        case rideWordOffered = "ride_word_offered"
        case soundsAnnounced = "sounds_announced"
        case soundsAnnouncedNotMade = "sounds_announced_not_made"
        case secondsDriverOut = "seconds_driver_out"
        case acrossJudgedWrongly = "across_judged_wrongly"
        case rideWordMisheard = "ride_word_misheard"
        case wrongCarsTried = "wrong_cars_tried"
        case haptics
    }

    /// Time to touch or confirmation over the straight-line walking time.
    public var timeRatio: Double? { secondsToConfirm.map { $0 / straightLineSeconds } }
    /// Time to the touch prompt over the straight-line walking time.
    public var touchTimeRatio: Double? { secondsToTouch.map { $0 / straightLineSeconds } }
    /// From the phones touching to "Touch detected", s (nil when either did not happen).
    public var contactToTouch: Double? {
        guard let contact = secondsToContact, let touch = secondsToTouch else { return nil }
        return max(0, touch - contact)
    }
}

/// One line of a walk's transcript.
public struct WalkMoment: Sendable, Equatable {
    public var time: Double
    public var trueDistance: Double
    /// The guide's estimate (nil before its first sighting).
    public var estimatedDistance: Double?
    /// Where the walker faces relative to the car, degrees (0: straight at it).
    public var headingOffset: Double
}
