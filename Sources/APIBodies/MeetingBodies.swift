// Bodies of the meeting at the kerb: the driver's locator answer, the driver's moves, the
// passenger's guide reporting in, the ride word. (APIBodies is Foundation-only: values are
// checked as text here, and mapped to RideWire's types by the routes.)

/// `POST /v1/rides/{id}/locator/answer`: the sound the driver made, or `none`.
public struct LocatorAnswerBody: StrictBody {
    public static let fields: Set<String> = ["sound"]
    public static let sounds = ["horn", "voice", "device", "none"]
    public var sound: String

    public func validate() throws {
        guard Self.sounds.contains(sound) else {
            throw BodyError.invalidField("sound", "must be one of \(Self.sounds.joined(separator: ", "))")
        }
    }
}

/// `POST /v1/rides/{id}/meeting`: the driver walks to the passenger (`coming`), or the car is
/// across the street and the driver comes round (`across`).
public struct MeetingBody: StrictBody {
    public static let fields: Set<String> = ["move"]
    public static let moves = ["coming", "across"]
    public var move: String

    public func validate() throws {
        guard Self.moves.contains(move) else {
            throw BodyError.invalidField("move", "must be one of \(Self.moves.joined(separator: ", "))")
        }
    }
}

/// `POST /v1/rides/{id}/guide`: the passenger's guide started or stopped.
public struct GuideReportBody: StrictBody {
    public static let fields: Set<String> = ["report"]
    public static let reports = ["started", "stopped"]
    public var report: String

    public func validate() throws {
        guard Self.reports.contains(report) else {
            throw BodyError.invalidField("report", "must be one of \(Self.reports.joined(separator: ", "))")
        }
    }
}

/// `POST /v1/rides/{id}/ride-word`: the two words the passenger's device derived and the
/// driver said, compared by the passenger.
public struct RideWordBody: StrictBody {
    public static let fields: Set<String> = ["word"]
    public var word: String

    public func validate() throws {
        try FieldRules.text(word, field: "word", maxLength: 64)
    }
}

/// `POST /v1/rides/{id}/come/answer`: the driver's device has the passenger's come request
/// (`received`), or the driver's answer: `coming`, or `staying` (he cannot leave the car).
public struct ComeAnswerBody: StrictBody {
    public static let fields: Set<String> = ["answer"]
    public static let answers = ["received", "coming", "staying"]
    public var answer: String

    public func validate() throws {
        guard Self.answers.contains(answer) else {
            throw BodyError.invalidField("answer", "must be one of \(Self.answers.joined(separator: ", "))")
        }
    }
}
