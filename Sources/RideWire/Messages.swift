import Foundation

/// A short message a passenger may send her driver once he accepted, in one tap (openapi.yaml
/// `MessagePreset`). The driver's device speaks and notifies the sentence; the dispatcher sees it.
public enum MessagePreset: String, Sendable, Codable, CaseIterable {
    /// "I'm at the main entrance."
    case atMainEntrance = "at_main_entrance"
    /// "I have a guide dog."
    case guideDog = "guide_dog"
    /// "I'm hard of hearing, please text."
    case hardOfHearing = "hard_of_hearing"
    /// "I'm waiting outside."
    case waitingOutside = "waiting_outside"
    /// "I need a few more minutes."
    case needMoreTime = "need_more_time"
    /// "Please call out my name when you arrive."
    case pleaseCallOut = "please_call_out"
    /// "I use a wheelchair and need room for it."
    case wheelchair = "wheelchair"

    /// The sentence the driver hears and reads (and the event's detail).
    public var sentence: String {
        switch self {
        case .atMainEntrance: "I'm at the main entrance."
        case .guideDog: "I have a guide dog."
        case .hardOfHearing: "I'm hard of hearing, please text."
        case .waitingOutside: "I'm waiting outside."
        case .needMoreTime: "I need a few more minutes."
        case .pleaseCallOut: "Please call out my name when you arrive."
        case .wheelchair: "I use a wheelchair and need room for it."
        }
    }

    /// The preset a stored sentence came from, if it is exactly one.
    public init?(sentence: String) {
        guard let preset = Self.allCases.first(where: { $0.sentence == sentence }) else { return nil }
        self = preset
    }
}

/// What a passenger sends (`POST /v1/rides/{id}/messages`): a preset, or her own words.
public struct NewPassengerMessage: Sendable, Equatable, Codable {
    /// One of the preset sentences; nil for free text.
    public var preset: MessagePreset?
    /// One line, at most `PassengerMessage.maxTextLength` characters (longer is refused, not cut).
    public var text: String?

    /// A preset message (`NewPassengerMessage(preset: .iAmAtTheDoor)`).
    public init(preset: MessagePreset) {
        self.preset = preset
        self.text = nil
    }

    /// A message in the passenger's own words.
    public init(text: String) {
        self.preset = nil
        self.text = text
    }
}

/// A message the passenger sent her driver (openapi.yaml `PassengerMessage`): a
/// `passenger_message` event on the ride's stream, whose detail is `text`.
public struct PassengerMessage: Sendable, Equatable, Codable {
    /// Free text may be at most this many characters: a driver reads it at a glance.
    public static let maxTextLength = 160

    /// The event's id on the ride's stream.
    public var eventID: Int64
    /// The ride it was sent on.
    public var rideID: String
    /// Set when the message is one of the presets.
    public var preset: MessagePreset?
    /// The sentence, as the driver hears it.
    public var text: String
    /// When the server recorded it.
    public var sentAt: Date

    /// A message as the server builds it from the stored event.
    public init(eventID: Int64, rideID: String, preset: MessagePreset?, text: String, sentAt: Date) {
        self.eventID = eventID
        self.rideID = rideID
        self.preset = preset
        self.text = text
        self.sentAt = sentAt
    }

    enum CodingKeys: String, CodingKey {
        case eventID = "eventId", rideID = "rideId", preset, text, sentAt
    }
}

extension RideEventKind {
    /// The passenger sent her driver a message (`PassengerMessage`); `state` is the ride's
    /// (`accepted` or `arrived`), `detail` the sentence.
    public static let passengerMessage = Self(rawValue: "passenger_message")
}

extension RideEvent {
    /// The message this event carries, if it is one.
    public var passengerMessage: PassengerMessage? {
        guard kind == .passengerMessage, let detail, let rideID else { return nil }
        return PassengerMessage(eventID: id, rideID: rideID, preset: MessagePreset(sentence: detail), text: detail, sentAt: at)
    }
}
