import Foundation
import Phrasebook
import RideStore
import RideWire

/// What the passenger page's templates see. Optional parts are arrays of zero or one item
/// (Mustache sections), as on the dispatcher page.
struct PassengerPage: Sendable {
    /// One problem with one field: the error summary links to `#fieldID`, the field shows it too.
    struct FieldError: Sendable {
        var fieldID, message: String
    }

    struct Place: Sendable {
        var name, address: String
        /// Position in the list, for the rename field's id (`rename-3`).
        var index = 0
        /// "New name for home", "Remove home" in the page's language.
        var renameLabel = "", removeLabel = ""
        var renameError: [String] = []
    }

    /// The add-a-place form as typed, and its errors (issue 25: places added, renamed and
    /// removed on the page).
    struct PlaceForm: Sendable {
        var name = "", address = ""
        var nameError: [String] = [], addressError: [String] = []
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
        /// The state as the page's language says it.
        var stateName: String
        var sentence: String
        var pickup, dropoff: String
        /// Present once a driver accepted: the page's script follows this ride's event stream.
        var rideID: [String]
        var driver: [String]
        var vehicle: [String]
        var eta: [String]
        /// What to do to find the car, once the driver has arrived: one sentence, no command.
        var guideHint: [String]
        /// Once the driver has arrived: what she can do at the kerb (`PassengerKerb`).
        var kerb: [PassengerKerb] = []
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
    /// Other sign-ins to the account (issue 37, 11): after the ride and the form, under their
    /// own heading, never before the page's own heading.
    var accountNotices: [String] = [] {
        didSet { hasAccountNotices = !accountNotices.isEmpty }
    }
    var hasAccountNotices = false
    var title: String
    var hasErrors: Bool
    var hasPlaces: Bool
    var placeForm: PlaceForm
    /// Problems with the places forms: their own error summary, in the places section.
    var placeErrors: [FieldError]
    var hasPlaceErrors: Bool
    /// The page's words in its language (`{{t.pickup_label}}`), and the language picker.
    var t: [String: String]
    var lang: String
    var languages: [LanguageChoice]

    struct LanguageChoice: Sendable {
        var code, name: String
        var selected: Bool
    }

    init(passenger: Account, csrf: String, lastEventID: Int64, places: [SavedPlaceRecord], current: Current?,
         form: RequestForm = RequestForm(), errors: [FieldError] = [], notice: String? = nil, book: Phrasebook = .english,
         placeForm: PlaceForm = PlaceForm(), placeErrors: [FieldError] = [], renameErrors: [String: String] = [:]) {
        passengerName = passenger.displayName
        self.csrf = csrf
        self.lastEventID = lastEventID
        self.places = places.enumerated().map { index, place in
            Place(name: place.name, address: place.address, index: index,
                  renameLabel: book(.pagePlaceRenameLabel, ["place": .text(place.name)]),
                  removeLabel: book(.pagePlaceRemoveLabel, ["place": .text(place.name)]),
                  renameError: renameErrors[place.name].map { [$0] } ?? [])
        }
        self.placeForm = placeForm
        self.placeErrors = placeErrors
        hasPlaceErrors = !placeErrors.isEmpty
        self.current = current.map { [$0] } ?? []
        self.form = current == nil ? [form] : []
        self.errors = errors
        self.notice = notice.map { [$0] } ?? []
        hasErrors = !errors.isEmpty
        hasPlaces = !places.isEmpty
        // GOV.UK: an error page's title starts with "Error:" so it is the first thing heard.
        title = (errors.isEmpty && placeErrors.isEmpty ? "" : book(.pageErrorPrefix) + " ") + book(current == nil ? .pageTitleRequest : .pageTitleRide)
        t = Self.words(book, name: passengerName)
        lang = book.language.rawValue
        languages = Self.languageChoices(book.language)
    }

    /// Every `page.` sentence of the phrasebook by its short name ("pickup_label"), with the
    /// passenger's name and the ride's code filled in where a sentence has them.
    static func words(_ book: Phrasebook, name: String = "", code: String = "") -> [String: String] {
        var words: [String: String] = [:]
        for key in PhraseID.allCases where key.rawValue.hasPrefix("page.") {
            words[String(key.rawValue.dropFirst(5))] = book(key, ["name": .text(name), "code": .text(code)])
        }
        return words
    }

    static func languageChoices(_ current: Language) -> [LanguageChoice] {
        Language.allCases.map { LanguageChoice(code: $0.rawValue, name: $0.name, selected: $0 == current) }
    }
}

extension PassengerPage.Current {
    /// A waiting request.
    init(request: RideRequestRecord, book: Phrasebook = .english) {
        let code = request.shortCode ?? "—"
        self.init(code: code, state: "requested", stateName: Self.stateName(.requested, book),
                  sentence: book(.pageRequestWaiting, ["code": .text(code), "pickup": .text(request.pickup), "dropoff": .text(request.dropoff)]),
                  pickup: request.pickup, dropoff: request.dropoff, rideID: [], driver: [], vehicle: [], eta: [], guideHint: [])
    }

    /// An active ride, in plain words with the driver's name first.
    init(ride detail: RideDetail, guide: PassengerPage.GuideState = .notStarted, book: Phrasebook = .english) {
        let code = detail.ride.shortCode ?? String(detail.ride.id.prefix(8))
        let driver = detail.driver.name
        // The car in the page's language ("Toyota Prius azul"); free text as written.
        let vehicle = detail.driver.vehicleDetails.map { book.vehicle(colour: $0.colour, make: $0.make, model: $0.model, plate: nil, spoken: false) }
            ?? detail.driver.vehicle
        let eta = detail.ride.state == .accepted ? detail.ride.etaMinutes : nil
        var words: [String: PhraseValue] = ["driver": .text(driver), "code": .text(code)]
        if let vehicle { words["vehicle"] = .text(vehicle) }
        let sentence: String
        switch detail.ride.state {
        case .accepted:
            let when = eta.map { " " + ($0 == 0 ? book(.pageEtaNow) : book(.pageEtaMinutes, ["minutes": .count($0)])) } ?? ""
            sentence = book(vehicle == nil ? .pageAccepted : .pageAcceptedVehicle, words) + when
        case .arrived:
            sentence = book(vehicle == nil ? .pageArrived : .pageArrivedVehicle, words)
        case .confirmed:
            sentence = book(.pageConfirmed, words)
        default:
            sentence = book(.pageStateOther, ["code": .text(code), "state": .text(Self.stateName(detail.ride.state, book))])
        }
        // The live region reads the sentence: what to do is part of it.
        let hint = detail.ride.state == .arrived ? Self.guideHint(driver: driver, guide, book: book) : nil
        self.init(code: code, state: detail.ride.state.rawValue, stateName: Self.stateName(detail.ride.state, book),
                  sentence: sentence + (hint.map { " " + $0 } ?? ""),
                  pickup: detail.pickup ?? "", dropoff: detail.dropoff ?? "", rideID: [detail.ride.id], driver: [driver],
                  vehicle: (detail.driver.vehicleDetails.map { book.vehicle(colour: $0.colour, make: $0.make, model: $0.model, plate: $0.plate, spoken: false) }
                      ?? detail.driver.vehicle).map { [$0] } ?? [], eta: eta.map { [book(.pageEtaShort, ["minutes": .count($0)])] } ?? [],
                  guideHint: [])
        if detail.ride.state == .arrived { kerb = [PassengerKerb(driver: driver, rideKey: detail.ride.key, wordLanguage: detail.passenger.language ?? "en", book: book)] }
    }

    /// Issue 22: what the passenger does now, in one sentence without a command. The phone's
    /// guide starts by itself (`passenger follow`); where it has not, the driver comes to them.
    static func guideHint(driver: String, _ guide: PassengerPage.GuideState, book: Phrasebook = .english) -> String {
        switch guide {
        case .guiding: book(.ridePhoneGuiding)
        case .notStarted, .stopped: book(.rideNoGuide, ["name": .text(driver)])
        }
    }

    /// A ride state's name in the page's language ("accepted", "aceptado").
    static func stateName(_ state: RideState, _ book: Phrasebook) -> String {
        switch state {
        case .requested: book(.rideStateNameRequested)
        case .accepted: book(.rideStateNameAccepted)
        case .arrived: book(.rideStateNameArrived)
        case .confirmed: book(.rideStateNameConfirmed)
        case .completed: book(.rideStateNameCompleted)
        case .cancelled: book(.rideStateNameCancelled)
        }
    }
}
