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
        /// How to start the radio guide, once there is a ride to be guided to.
        var guideCommand: [String]
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
                  pickup: request.pickup, dropoff: request.dropoff, rideID: [], driver: [], vehicle: [], eta: [], guideCommand: [])
    }

    /// An active ride, in plain words with the driver's name first.
    init(ride detail: RideDetail) {
        let code = detail.ride.shortCode ?? String(detail.ride.id.prefix(8))
        let driver = detail.driver.name
        let vehicle = detail.driver.vehicle.map { " in a \($0)" } ?? ""
        let eta = detail.ride.state == .accepted ? detail.ride.etaMinutes : nil
        let sentence: String
        switch detail.ride.state {
        case .accepted:
            let when = eta.map { $0 == 0 ? " They are at the pickup now." : " They expect to reach the pickup in \($0) minute\($0 == 1 ? "" : "s")." } ?? ""
            sentence = "\(driver)\(vehicle) accepted your ride \(code).\(when)"
        case .arrived:
            sentence = "\(driver)\(vehicle) has arrived at the pickup for ride \(code). Start the guide to find the car."
        case .confirmed:
            sentence = "You found \(driver)'s car for ride \(code). Have a good trip."
        default:
            sentence = "Your ride \(code) is \(detail.ride.state.rawValue)."
        }
        self.init(code: code, state: detail.ride.state.rawValue, sentence: sentence,
                  pickup: detail.pickup ?? "", dropoff: detail.dropoff ?? "", rideID: [detail.ride.id], driver: [driver],
                  vehicle: detail.driver.vehicle.map { [$0] } ?? [], eta: eta.map { ["\($0) min"] } ?? [],
                  guideCommand: ["ridebeacon passenger guide \(code) --radio bluez"])
    }
}
