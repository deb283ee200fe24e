import Foundation

/// Who cancelled a ride or request, and why (openapi.yaml `Cancellation`): the history's last
/// `cancelled` event, told plainly ("cancelled by a dispatcher: driver unwell").
public struct RideCancellation: Sendable, Equatable, Codable {
    /// Who: the ride's passenger or driver, a dispatcher, or the operator (admin CLI).
    public enum By: String, Sendable, Codable, CaseIterable {
        case passenger, driver, dispatcher, `operator`
    }

    /// Who cancelled.
    public var by: By
    /// The reason given, if any.
    public var reason: String?
    /// When the cancellation was recorded.
    public var at: Date

    /// A cancellation as the API returns it.
    public init(by: By, reason: String?, at: Date) {
        self.by = by
        self.reason = reason
        self.at = at
    }

    /// Who an event's actor was, for a request of `passengerID` (and a ride of `driverID`):
    /// anyone else who may cancel is a dispatcher (admins act as dispatchers), "operator" the admin CLI.
    public init(event: RideEvent, passengerID: String?, driverID: String?) {
        let by: By = switch event.actorID {
        case "operator": .operator
        case passengerID: .passenger
        case driverID: .driver
        default: .dispatcher
        }
        self.init(by: by, reason: event.detail.flatMap { $0.isEmpty ? nil : $0 }, at: event.at)
    }

    /// Reasons the server writes itself are not the person's words; they are left out of sentences.
    public var personReason: String? {
        guard let reason, !reason.hasPrefix("cancelled by the passenger on the passenger page") else { return nil }
        return reason
    }
}

extension RideCancellation: WireJSONEncodable {
    /// `{"at": …, "by": …, "reason": …}`, `reason` left out when absent.
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.key("at"); json.date(at)
            json.key("by"); json.string(by.rawValue)
            json.member("reason", reason)
        }
    }
}
