import Foundation
import Phrasebook
@testable import RideBeaconCLI
import RideClient
import Testing

/// Issue 37, point 12: the dispatcher's and the admin's lines in the device's language. Their
/// phrases carry no English in Spanish or French, and the tables, the status words and the
/// `--watch` change lines are the phrasebook's, while English keeps the wording people know.
@Suite("Dispatcher and admin lines in every language")
struct DispatcherAdminWordsTests {
    /// The phrases these commands added (`dispatch.`, `table.`, `admin.`).
    static let phrases = PhraseID.allCases.filter { ["dispatch.", "table.", "admin."].contains(where: $0.rawValue.hasPrefix) }

    /// A form left in English reads the same as English once placeholders are taken out; only
    /// a form with nothing but placeholders and punctuation may (there is none to translate).
    @Test("no English left in the dispatcher's and admin's phrases", arguments: [Language.es, .fr])
    func noEnglish(language: Language) {
        #expect(Self.phrases.count >= 50, "the block was found: \(Self.phrases.count)")
        func words(_ text: String) -> String {
            var rest = text
            for name in Phrasebook.placeholders(in: text) { rest = rest.replacingOccurrences(of: "{\(name)}", with: "") }
            return rest.filter { $0.isLetter }
        }
        for key in Self.phrases {
            for count in [1, 2] {
                let english = Phrasebook.english(key, ["minutes": .count(count)])
                let translated = Phrasebook(language)(key, ["minutes": .count(count)])
                guard !words(english).isEmpty else { continue }
                #expect(translated != english, "\(key.rawValue) in \(language.rawValue) is the English \(english)")
                #expect(words(translated) != words(english), "\(key.rawValue) in \(language.rawValue): \(translated)")
            }
        }
    }

    static let drivers = [DriverInfo(id: "1a2b3c4d", name: "Ben", vehicle: "blue Prius", free: true, rideCode: nil),
                          DriverInfo(id: "9f8e7d6c", name: "Cy", vehicle: "red Golf", free: false, rideCode: "K7RX")]

    @Test("the driver list: status words and headers in Spanish and French, English as before")
    func driverList() {
        let spanish = DispatcherBoard.drivers(Self.drivers, onlyFree: false, in: Phrasebook(.es))
        #expect(spanish.hasPrefix("CONDUCTOR  VEHÍCULO    SITUACIÓN\n"), "\(spanish)")
        #expect(spanish.contains("libre") && spanish.contains("en el viaje K7RX") && !spanish.contains("free") && !spanish.contains("on ride"),
                "\(spanish)")
        let french = DispatcherBoard.drivers(Self.drivers, onlyFree: false, in: Phrasebook(.fr))
        #expect(french.contains("CHAUFFEUR") && french.contains("en course K7RX") && !french.contains("on ride"), "\(french)")
        let english = DispatcherBoard.drivers(Self.drivers, onlyFree: false, in: .english)
        #expect(english.hasPrefix("DRIVER  VEHICLE     STATUS\n") && english.hasSuffix("on ride K7RX"), "\(english)")
        #expect(DispatcherBoard.drivers([], onlyFree: true, in: Phrasebook(.es)) == "No hay ningún conductor libre.")
        #expect(DispatcherBoard.drivers([], onlyFree: false, in: Phrasebook(.fr)) == "Il n'y a encore aucun chauffeur.")
    }

    @Test("the board: English as before, Spanish headers and state names")
    func board() {
        let ride = Script.ride(.accepted)
        let waiting = Script.request(.open)
        #expect(DispatcherBoard.board(requests: [], rides: [], in: .english) == "No waiting requests.\n\nNo active rides.")
        let english = DispatcherBoard.board(requests: [waiting], rides: [ride], in: .english)
        #expect(english.hasPrefix("Waiting requests:\nPASSENGER  REQUEST  PICKUP"), "English reads as it did: \(english)")
        #expect(english.contains("Active rides:\nPASSENGER  DRIVER") && english.contains("accepted"), "\(english)")
        let spanish = DispatcherBoard.board(requests: [waiting], rides: [ride], in: Phrasebook(.es))
        #expect(spanish.hasPrefix("Solicitudes en espera:\nPASAJERO  SOLICITUD  RECOGIDA"), "\(spanish)")
        #expect(spanish.contains("Viajes activos:\nPASAJERO  CONDUCTOR") && spanish.contains("aceptado"), "\(spanish)")
        #expect(!spanish.contains("accepted") && !spanish.contains("PICKUP"), "\(spanish)")
    }

    @Test("--watch's change lines: English as before, no English in Spanish or French")
    func changeLines() {
        let ride = Script.ride(.accepted)
        let accepted = RideEvent(id: 1, requestID: "request-1", rideID: "ride-1", sequence: 2, kind: .stateChanged, state: .accepted,
                                 actorID: "ben", at: Script.start, detail: nil)
        let eta = RideEvent(id: 2, requestID: "request-1", rideID: "ride-1", sequence: 3, kind: .etaGiven, state: .accepted,
                            actorID: "ben", at: Script.start, detail: ETAText.detail(minutes: 5))
        let requested = RideEvent(id: 3, requestID: "request-1", rideID: nil, sequence: 1, kind: .stateChanged, state: .requested,
                                  actorID: "ana", at: Script.start, detail: nil)
        typealias Rides = DispatcherCommand.Rides
        #expect(Rides.change(accepted, ride: ride, request: nil, in: .english) == "Ana's ride K7RX with Ben is now accepted")
        #expect(Rides.change(eta, ride: ride, request: nil, in: .english) == "Ana's ride K7RX with Ben: ETA 5 minutes")
        #expect(Rides.change(requested, ride: nil, request: Script.request(.open), in: .english)
            == "new request: Ana's request Q3PL from Main St 1 to Station")
        #expect(Rides.change(accepted, ride: ride, request: nil, in: Phrasebook(.es)) == "El viaje K7RX de Ana con Ben: ahora aceptado")
        #expect(Rides.change(eta, ride: ride, request: nil, in: Phrasebook(.fr)) == "Course K7RX (Ana avec Ben) : arrivée dans 5 minutes")
        #expect(Rides.change(requested, ride: nil, request: Script.request(.open), in: Phrasebook(.es))
            == "nueva solicitud: Q3PL de Ana, desde Main St 1 hasta Station")
    }
}
