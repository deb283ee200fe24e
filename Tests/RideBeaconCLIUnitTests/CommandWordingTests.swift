import ArgumentParser
import Foundation
import Phrasebook
@testable import RideBeaconCLI
import RideClient
import Testing

/// The CLI's sentences, in process: failures named by field and said as what to do
/// (ErrorWords), who cancelled (CancellationWords), the ride's announcements, tables a screen
/// reader reads row by row, and picking a person by name (WhichOne).
@Suite("the CLI's wording")
struct CommandWordingTests {
    // MARK: ErrorWords

    @Test("a refused field is named in words, the service's code only with --verbose")
    func refusedFieldIsNamed() {
        let problem = APIProblem(status: 400, code: APIErrorCode(rawValue: "invalid_field"),
                                 message: "accessibilityNotes: must be at most 500 characters", field: "accessibilityNotes")
        #expect(ErrorWords.sentence(.rejected(problem), server: "https://rides.example")
                == "The notes for the driver must be at most 500 characters.")
        #expect(ErrorWords.sentence(.rejected(problem), server: "https://rides.example", verbose: true)
                == "The notes for the driver must be at most 500 characters. (invalid_field, field accessibilityNotes, HTTP 400)")
        let json = ErrorWords.json("The notes for the driver must be at most 500 characters.", problem)
        #expect(json == #"{"error":{"code":"invalid_field","field":"accessibilityNotes","sentence":"The notes for the driver must be at most 500 characters.","status":400}}"#)
    }

    @Test("a field's name as a person says it", arguments: [
        ("accessibilityNotes", "The notes for the driver"), ("vehiclePlate", "The number plate"), ("code", "The sign-in code"),
        ("word", "The ride word"), ("Idempotency-Key", "The request's retry key"), ("colour", "The colour"),
    ])
    func fieldWords(field: String, words: String) {
        #expect(ErrorWords.fieldWords(field) == words)
    }

    @Test("a connection failure names the server and says whether anything was sent")
    func connectionFailures() {
        #expect(ErrorWords.sentence(.notAnswering("connect refused"), server: "http://127.0.0.1:9")
                == "The ride service at http://127.0.0.1:9 is not answering. Check your connection; nothing was sent.")
        #expect(ErrorWords.sentence(.notAnswering("connect refused"), server: "http://127.0.0.1:9", verbose: true).hasSuffix("(connect refused)"))
        let busy = APIProblem(status: 503, code: APIErrorCode(rawValue: "unavailable"), message: "busy", retryAfter: 30)
        #expect(ErrorWords.sentence(.serverFailure(busy), server: "x") == "The ride service is having trouble right now. Try again in 30 seconds.")
        let limited = APIProblem(status: 429, code: APIErrorCode(rawValue: "rate_limited"), message: "slow down", retryAfter: 12)
        #expect(ErrorWords.sentence(.rejected(limited), server: "x") == "Too many tries. Wait 12 seconds, then try again.")
    }

    @Test("one sentence: a capital, a full stop, no 'Error:'", arguments: [
        ("error: the file is empty", "Error: the file is empty."),
        ("Error: the file is empty", "The file is empty."),
        ("  ride K7RX was cancelled\n", "Ride K7RX was cancelled."),
        ("Done!", "Done!"),
        ("", "Something went wrong."),
    ])
    func oneSentence(text: String, sentence: String) {
        #expect(ErrorWords.make(text) == sentence)
    }

    /// ArgumentParser's own refusals, parsed for real against the root command.
    static func refusal(_ arguments: [String]) -> String {
        do {
            _ = try RideBeacon.parseAsRoot(arguments)
            return "parsed"
        } catch {
            return ErrorWords.sentence(for: error, message: RideBeacon.message(for: error), arguments: arguments, root: RideBeacon.self)
        }
    }

    @Test("a mistyped option is named with the nearest real one")
    func mistypedOption() {
        #expect(Self.refusal(["passenger", "request", "--pikup", "Main St 1"]) == "There is no option --pikup; did you mean --pickup?")
        #expect(Self.refusal(["passenger", "request", "--zzzzzzzz"])
                == "There is no option --zzzzzzzz; run the command with --help to see its options.")
    }

    @Test("a negative number where a value was due is said as such")
    func negativeNumber() {
        #expect(Self.refusal(["driver", "eta", "-5"]) == "MINUTES cannot be negative (you gave -5).")
    }

    @Test("the edit distance behind 'did you mean'")
    func editDistance() {
        #expect(ErrorWords.distance("--pickup", "--pikup") == 1)
        #expect(ErrorWords.distance("", "abc") == 3)
        #expect(ErrorWords.distance("kitten", "sitting") == 3)
    }

    // MARK: Cancellations and announcements

    @Test("who cancelled and why, in each language")
    func whoCancelled() {
        let byDispatcher = RideCancellation(by: .dispatcher, reason: "driver unwell", at: Date())
        #expect(CancellationWords.sentence(byDispatcher) == "Cancelled by a dispatcher: driver unwell.")
        #expect(CancellationWords.cancelled(byDispatcher) == "cancelled by a dispatcher (driver unwell)")
        #expect(CancellationWords.requestCancelled(nil) == "Your request was cancelled.")
        // The page's own reason is the server's words, not hers: left out.
        let onThePage = RideCancellation(by: .passenger, reason: "cancelled by the passenger on the passenger page", at: Date())
        #expect(CancellationWords.sentence(onThePage) == "Cancelled by you.")
        for language in Language.allCases where language != .en {
            let book = Phrasebook(language)
            let sentence = CancellationWords.sentence(byDispatcher, in: book)
            #expect(sentence.contains("driver unwell") && sentence != "Cancelled by a dispatcher: driver unwell.", "\(language): \(sentence)")
        }
    }

    @Test("the arrival says whether the phone guides, never both")
    func arrivalGuidingOrNot() {
        let ride = Script.ride(.arrived)
        let guiding = RideAnnouncement.current(ride, guiding: true)
        let notGuiding = RideAnnouncement.current(ride, guiding: false)
        #expect(guiding.summary == "Ben has arrived" && notGuiding.summary == guiding.summary)
        #expect(guiding.body.hasSuffix("Your phone is guiding you to the car."))
        #expect(notGuiding.body.hasSuffix(Phrasebook.english(.rideNoGuide, ["name": .text("Ben")])))
        #expect(!notGuiding.spoken.contains("guiding you"))
    }

    @Test("without a guide, the driver's answer to a sound request is said")
    func meetingWords() {
        let ride = Script.ride(.arrived)
        func event(_ kind: RideEventKind, _ detail: String?) -> RideEvent {
            RideEvent(id: 1, requestID: "request-1", rideID: "ride-1", sequence: 5, kind: kind, state: .arrived, actorID: "ben",
                      at: Script.start, detail: detail)
        }
        let horn = RideAnnouncement.meeting(event(.locatorAnswered, "horn"), ride: ride)
        #expect(horn?.body == Phrasebook.english(.followWalkToSound))
        let cannot = RideAnnouncement.meeting(event(.locatorAnswered, "none"), ride: ride)
        #expect(cannot?.body == Phrasebook.english(.followStayAtPickup))
        #expect(RideAnnouncement.meeting(event(.driverComing, nil), ride: ride)?.body == Phrasebook.english(.followStayWhereYouAre))
        #expect(RideAnnouncement.meeting(event(.etaGiven, "ETA 3 minutes"), ride: ride) == nil)
    }

    @Test("an ETA is said in minutes, with the driver and the ride's code")
    func etaWords() {
        let ride = Script.ride(.accepted)
        let event = RideEvent(id: 1, requestID: "request-1", rideID: "ride-1", sequence: 3, kind: .etaGiven, state: .accepted,
                              actorID: "ben", at: Script.start, detail: ETAText.detail(minutes: 1))
        let words = RideAnnouncement.change(event, ride: ride)
        #expect(words.summary == "Ben will be there in 1 minute", "\(words)")
        #expect(words.body.hasPrefix("Ben, blue Toyota Prius."), "\(words)")
    }

    // MARK: Tables and picking

    @Test("a table a screen reader reads: header, two spaces between columns, no trailing padding, no control characters")
    func plainTable() {
        let table = PlainTable.render(header: ["NAME", "STATE"], rows: [["Ana", "arrived"], ["Bartholomew\u{1B}[31m", ""]])
        // The widest cell is 16 characters ("Bartholomew [31m", its escape turned to a space).
        func padded(_ cell: String) -> String { cell + String(repeating: " ", count: 16 - cell.count) + "  " }
        #expect(table == padded("NAME") + "STATE\n" + padded("Ana") + "arrived\n" + padded("Bartholomew [31m") + "-")
        #expect(PlainTable.time(Date(timeIntervalSince1970: 3_723)) == "01:02:03 UTC")
        #expect(PlainTable.date(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00 UTC")
    }

    struct Driver {
        var id: String
        var name: String
    }

    static var drivers: WhichOne<Driver> {
        WhichOne(kind: "driver", items: [Driver(id: "1a2b3c4d-0000", name: "Ben"), Driver(id: "1a2b9999-0000", name: "ben"),
                                         Driver(id: "77aa0000-0000", name: "Chloé")],
                 id: \.id, name: { $0.name }, describe: { "\($0.name) (\($0.id.prefix(6)))" }, listCommand: "ridebeacon dispatcher drivers")
    }

    @Test("a person picked by name, or by the start of an id; otherwise one sentence asking which")
    func whichOne() throws {
        #expect(try Self.drivers.pick("chloé").id == "77aa0000-0000")
        #expect(try Self.drivers.pick("77aa").name == "Chloé")
        #expect(throws: CommandLineFailure.self) { try Self.drivers.pick("1a2b") }
        do {
            _ = try Self.drivers.pick("BEN")
            Issue.record("two drivers are called Ben")
        } catch {
            #expect(error.message == "2 drivers are called BEN: Ben (1a2b3c), ben (1a2b99); which one? Give the start of its id, like 1a2b3c")
        }
        do {
            _ = try Self.drivers.pick("Zoe")
            Issue.record("no driver is called Zoe")
        } catch {
            #expect(error.message == "no driver is called Zoe; which one? Ben (1a2b3c), ben (1a2b99), Chloé (77aa00)")
        }
    }
}
