import Foundation

// The meeting at the kerb, as the ride's history records it: events that change no state,
// each a `RideEventKind` with a detail the server writes (never a caller's free text).

extension RideEventKind {
    /// The driver answered the passenger's locator request (`POST /v1/rides/{id}/locator/answer`):
    /// `detail` names the sound made (`LocatorSoundName`), or `none` when the driver cannot.
    public static let locatorAnswered = Self(rawValue: "locator_answered")
    /// The driver is walking to the passenger (`POST /v1/rides/{id}/meeting` `coming`).
    public static let driverComing = Self(rawValue: "driver_coming")
    /// The car is across the street from the passenger; the driver comes round (`across`).
    public static let carAcross = Self(rawValue: "car_across")
    /// The passenger's guide started, or stopped (`POST /v1/rides/{id}/guide`); `detail` is
    /// the guide's radio (`started`), or why it stopped (`stopped`).
    public static let guideStarted = Self(rawValue: "guide_started")
    /// The passenger's guide stopped; `detail` says why.
    public static let guideStopped = Self(rawValue: "guide_stopped")
}

/// A sound the driver can make so the passenger hears where the car is, from the loudest:
/// two short taps on the horn, the driver's voice (through the open window, or from the kerb),
/// the driver's device's tick (heard only near). `none`: the driver cannot make one now.
public enum LocatorSoundName: String, Sendable, Codable, CaseIterable, Equatable {
    case horn, voice, device, none

    /// The sounds a deployment may allow (`--locator-sounds`), `none` excluded.
    public static let makeable: [LocatorSoundName] = [.horn, .voice, .device]

    /// Parses `horn,voice,device` (any order, at least one, no repeats).
    public static func list(parsing text: String) throws(MeetingWireError) -> [LocatorSoundName] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var sounds: [LocatorSoundName] = []
        for name in names {
            guard let sound = LocatorSoundName(rawValue: name), sound != .none else {
                throw MeetingWireError("\"\(name)\" is not a locator sound; use horn, voice and device, comma-separated")
            }
            guard !sounds.contains(sound) else { throw MeetingWireError("\"\(name)\" is named twice") }
            sounds.append(sound)
        }
        return sounds
    }
}

/// A wire value that does not parse, in words.
public struct MeetingWireError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What does not parse, and what would.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// What the driver's device does at the kerb, besides sounding: `coming` (the driver walks to
/// the passenger), `across` (the car is across the street; the driver comes round).
public enum MeetingMove: String, Sendable, Codable, CaseIterable, Equatable {
    case coming, across

    /// The event the move puts on the ride's stream.
    public var eventKind: RideEventKind { self == .coming ? .driverComing : .carAcross }
}

/// The passenger's guide reporting in: `started` on a radio, or `stopped`.
public enum GuideReport: String, Sendable, Codable, CaseIterable, Equatable {
    case started, stopped

    /// The event the report puts on the ride's stream.
    public var eventKind: RideEventKind { self == .started ? .guideStarted : .guideStopped }
}

/// The answer to the meeting's POSTs (locator answer, meeting move, guide report): the event
/// now on the ride's stream.
public struct MeetingEvent: Sendable, Equatable, Codable {
    /// The event's id on the ride's stream.
    public var eventID: Int64
    /// The ride it belongs to.
    public var rideID: String
    /// `locator_answered`, `driver_coming`, `car_across`, `guide_started` or `guide_stopped`.
    public var kind: RideEventKind
    /// The server-written detail (a sound's name, the guide's radio, why it stopped).
    public var detail: String?
    /// When it was recorded.
    public var at: Date

    /// The answer as the server builds it from the stored event.
    public init(eventID: Int64, rideID: String, kind: RideEventKind, detail: String?, at: Date) {
        self.eventID = eventID
        self.rideID = rideID
        self.kind = kind
        self.detail = detail
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case eventID = "eventId", rideID = "rideId", kind, detail, at
    }
}

extension RideEvent {
    /// The sound a `locator_answered` event names (nil for other events, or a detail not a sound).
    public var locatorAnswer: LocatorSoundName? {
        guard kind == .locatorAnswered, let detail else { return nil }
        return LocatorSoundName(rawValue: detail)
    }
}
