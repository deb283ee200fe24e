import Foundation

// The passenger asks the driver to come to her at the pickup (issue 37, point 2): her phone
// cannot guide her, or she would rather wait. Three events that change no state, so that
// every sentence she hears about the driver stands on something his device sent:
// `come_requested` (hers), `come_received` (his device has it and told him), `come_answered`
// (his answer: he is coming, or he cannot leave the car).

extension RideEventKind {
    /// The passenger asked the driver to come to her (`POST /v1/rides/{id}/come`).
    public static let comeRequested = Self(rawValue: "come_requested")
    /// The driver's device has the request and told the driver (`POST /v1/rides/{id}/come/answer`
    /// `received`): posted by the device, before the driver decides.
    public static let comeReceived = Self(rawValue: "come_received")
    /// The driver's answer (`coming` or `staying`, the event's detail).
    public static let comeAnswered = Self(rawValue: "come_answered")
}

/// What the driver's device answers to a come request: `received` (the device has it and told
/// the driver), then the driver's own answer, `coming` (he walks to her) or `staying` (he
/// cannot leave the car).
public enum ComeAnswer: String, Sendable, Codable, CaseIterable, Equatable {
    case received, coming, staying

    /// The event the answer puts on the ride's stream.
    public var eventKind: RideEventKind { self == .received ? .comeReceived : .comeAnswered }
}

extension RideEvent {
    /// The answer a `come_received` or `come_answered` event carries (nil for other events).
    public var comeAnswer: ComeAnswer? {
        switch kind {
        case .comeReceived: .received
        case .comeAnswered: detail.flatMap(ComeAnswer.init(rawValue:)).flatMap { $0 == .received ? nil : $0 }
        default: nil
        }
    }
}

/// How a ride was confirmed, as its `confirmed` event records it: the sentence the passenger
/// hears says how it actually happened (issue 37, point 8).
public enum RideConfirmationWay: String, Sendable, Equatable, CaseIterable {
    /// The two devices touched (touch proofs).
    case touch
    /// The passenger gave the ride word the driver said (`POST /v1/rides/{id}/ride-word`).
    case rideWord = "ride_word"
    /// An operator confirmed it (`ridebeacon admin confirm-ride`, the demo's override).
    case `operator`

    /// The way a `confirmed` state change records: the operator's actor, the ride word's detail
    /// ("ride word (word proof, …)"), else the touch proofs'.
    public init(event: RideEvent) {
        let detail = event.detail ?? ""
        if event.actorID == "operator" || detail.contains("operator") {
            self = .operator
        } else if detail.hasPrefix("ride word") {
            self = .rideWord
        } else {
            self = .touch
        }
    }
}
