import Foundation
import RideStore

/// What the passenger page's templates see. Optional parts are arrays of zero or one item
/// (Mustache sections), as on the dispatcher page.
struct PassengerPage: Sendable {
    /// One problem with one field: the error summary links to `#fieldID`, the field shows it too.
    struct FieldError: Sendable {
        var fieldID, message: String
    }

    struct Place: Sendable {
        var name, address: String
    }

    /// The request form's values as typed (kept on an error so nothing is lost) and its errors.
    struct RequestForm: Sendable {
        var pickup = "", dropoff = "", notes = ""
        var pickupError: [String] = [], dropoffError: [String] = [], notesError: [String] = []
    }

    /// The passenger's open request or active ride.
    struct Current: Sendable {
        var code: String
        var state: String
        var sentence: String
        var pickup, dropoff: String
        /// Present once a driver accepted: the page's script follows this ride's event stream.
        var rideID: [String]
        var driver: [String]
        var vehicle: [String]
        var eta: [String]
        /// What to do to find the car, once the driver has arrived: one sentence, no command.
        var guideHint: [String]
    }

    /// Whether the passenger's phone is guiding (its guide's `guide_started` / `guide_stopped`).
    enum GuideState: Sendable {
        case notStarted, guiding, stopped
    }

    var passengerName: String
    var csrf: String
    var lastEventID: Int64
    var places: [Place]
    var form: [RequestForm]
    var current: [Current]
    var errors: [FieldError]
    var notice: [String]
    var title: String
    var hasErrors: Bool
    var hasPlaces: Bool

    init(passenger: Account, csrf: String, lastEventID: Int64, places: [SavedPlaceRecord], current: Current?,
         form: RequestForm = RequestForm(), errors: [FieldError] = [], notice: String? = nil) {
        passengerName = passenger.displayName
        self.csrf = csrf
        self.lastEventID = lastEventID
        self.places = places.map { Place(name: $0.name, address: $0.address) }
        self.current = current.map { [$0] } ?? []
        self.form = current == nil ? [form] : []
        self.errors = errors
        self.notice = notice.map { [$0] } ?? []
        hasErrors = !errors.isEmpty
        hasPlaces = !places.isEmpty
        // GOV.UK: an error page's title starts with "Error:" so it is the first thing heard.
        title = (errors.isEmpty ? "" : "Error: ") + (current == nil ? "Request a ride" : "Your ride")
    }
}

extension PassengerPage.Current {
    /// A waiting request.
    init(request: RideRequestRecord) {
        let code = request.shortCode ?? "—"
        self.init(code: code, state: "requested",
                  sentence: "Your ride \(code) is waiting for a driver. Pickup: \(request.pickup). Drop-off: \(request.dropoff).",
                  pickup: request.pickup, dropoff: request.dropoff, rideID: [], driver: [], vehicle: [], eta: [], guideHint: [])
    }

    /// An active ride, in plain words with the driver's name first.
    init(ride detail: RideDetail, guide: PassengerPage.GuideState = .notStarted) {
        let code = detail.ride.shortCode ?? String(detail.ride.id.prefix(8))
        let driver = detail.driver.name
        let vehicle = detail.driver.vehicleDetails.map { " in a \($0.summary)" } ?? detail.driver.vehicle.map { " in a \($0)" } ?? ""
        let eta = detail.ride.state == .accepted ? detail.ride.etaMinutes : nil
        let sentence: String
        switch detail.ride.state {
        case .accepted:
            let when = eta.map { $0 == 0 ? " They are at the pickup now." : " They expect to reach the pickup in \($0) minute\($0 == 1 ? "" : "s")." } ?? ""
            sentence = "\(driver)\(vehicle) accepted your ride \(code).\(when)"
        case .arrived:
            sentence = "\(driver)\(vehicle) has arrived at the pickup for ride \(code)."
        case .confirmed:
            sentence = "You found \(driver)'s car for ride \(code). Have a good trip."
        default:
            sentence = "Your ride \(code) is \(detail.ride.state.rawValue)."
        }
        // The live region reads the sentence: what to do is part of it.
        let hint = detail.ride.state == .arrived ? Self.guideHint(driver: driver, guide) : nil
        self.init(code: code, state: detail.ride.state.rawValue, sentence: sentence + (hint.map { " " + $0 } ?? ""),
                  pickup: detail.pickup ?? "", dropoff: detail.dropoff ?? "", rideID: [detail.ride.id], driver: [driver],
                  vehicle: detail.driver.writtenVehicle.map { [$0] } ?? [], eta: eta.map { ["\($0) min"] } ?? [],
                  guideHint: [])
    }

    /// Issue 22: what the passenger does now, in one sentence without a command. The phone's
    /// guide starts by itself (`passenger follow`); where it has not, the driver comes to them.
    static func guideHint(driver: String, _ guide: PassengerPage.GuideState) -> String {
        switch guide {
        case .guiding: "Your phone is guiding you to the car."
        case .notStarted, .stopped: NoGuide.sentence(driver: driver)
        }
    }
}
