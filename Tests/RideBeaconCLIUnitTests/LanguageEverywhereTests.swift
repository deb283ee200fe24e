import BeaconCore
import Foundation
import Guide
import Phrasebook
@testable import RideBeaconCLI
import RideClient
import RideSession
import SessionDoubles
import Testing

/// Issue 37 (point 12): every line in the person's language. The ride word both devices say is
/// the passenger's; the driver's answer keys are his language's letters; one rule decides a
/// device's language for errors and history alike; the error sentences, the "which one"
/// questions and the history in Spanish and French carry no English.
@Suite("Every line in her language, in process")
struct LanguageEverywhereTests {
    // MARK: The ride word, the same on both devices

    /// Her language and his device's (a different one each time): the word is hers on both.
    @Test("her phone and his device show the same two words, in her language", arguments: [
        (Language.en, Language.es), (.es, .fr), (.fr, .en),
    ])
    func bothDevicesSayHerRideWord(hers: Language, his: Language) async throws {
        let word = RideWord.phrase(rideKey: Script.rideKey, language: hers.rawValue)
        #expect(hers == .en || word != RideWord.phrase(rideKey: Script.rideKey), "her list is not the English one")

        // His device: `driver arrive`, his account in his language, w asks for the word.
        let arrive = try DriverArriveFlowTests.Arrive(language: his.rawValue)
        arrive.service.state.withLock { $0.rides[0].passenger.language = hers.rawValue }
        let (others, press) = AsyncStream<DriverKey>.makeStream()
        let device = DriverArriveCommand.Device(
            settings: { nil }, keys: { _ in DriverKeys(enter: AsyncStream { _ in }, others: others) },
            interrupted: { try? await Task.sleep(for: .seconds(86_400)) }, openRadio: { [radio = arrive.radio] _ in radio },
            notifications: { nil })
        let running = Task { [command = arrive.command, service = arrive.service, console = arrive.console] in
            try await console.record {
                try await command.meet(client: service, radio: .sim, touch: Calibration(model: .default), device: device)
            }
        }
        let hisBook = Phrasebook(his)
        #expect(await arrive.console.printed(hisBook(.driverArrived, ["code": .text("K7RX"), "name": .text("Ana")])), "\(arrive.console.out)")
        press.yield(.rideWord)
        let driverSays = hisBook(.driverRideWordIs, ["word": .text(word), "name": .text("Ana")])
        #expect(await arrive.console.printed(driverSays), "his device says her words, in his sentence: \(arrive.console.out)")
        #expect(arrive.rides.move(to: .confirmed))
        try await running.value

        // Her phone: `passenger follow` at the kerb without a radio, w says the word.
        let follow = try FollowFlowTests.Follow(hers, rides: [Script.ride(.arrived)])
        let kerb = FollowKerb(answerWait: .seconds(60))
        let console = ConsoleRecorder()
        await console.record {
            var ride = Script.ride(.arrived)
            ride.passenger.language = hers.rawValue
            await kerb.askDriverToCome(ride: ride, client: follow.service, announcer: follow.announcer)
            #expect(await kerb.key(.rideWord))
            kerb.stop()
        }
        #expect(console.out.contains(follow.book(.guideRideWordIs, ["word": .text(word)])), "\(console.out)")
    }

    // MARK: The driver's answer keys

    @Test("yes and no are the driver's language's letters: y/n, s/n, o/n; y is not yes in French")
    func answerKeysPerLanguage() {
        let en = Phrasebook(.en), es = Phrasebook(.es), fr = Phrasebook(.fr)
        #expect(DriverKey(character: "y", in: en) == .done && DriverKey(character: "n", in: en) == .cannot)
        #expect(DriverKey(character: "s", in: es) == .done && DriverKey(character: "S", in: es) == .done)
        #expect(DriverKey(character: "n", in: es) == .cannot)
        #expect(DriverKey(character: "o", in: fr) == .done && DriverKey(character: "n", in: fr) == .cannot)
        #expect(DriverKey(character: "o", in: en) == nil && DriverKey(character: "s", in: en) == nil, "English keeps y/n")
    }

    /// The prompts name their language's letters; y stays yes everywhere (no key means
    /// anything else by it), so a driver used to y is never ignored.
    @Test("y stays yes in every language, beside the language's own letter")
    func yStaysYesBesideTheLanguagesLetter() {
        for language in [Language.en, .es, .fr] {
            #expect(DriverKey(character: "y", in: Phrasebook(language)) == .done, "\(language)")
        }
        #expect(DriverKey(character: "o", in: Phrasebook(.en)) == nil, "o is yes in French only")
    }

    // MARK: One rule for the device's language

    @Test("the saved setting, else the account's, else the system's locale, else English")
    func oneRuleForTheDevicesLanguage() async throws {
        let follow = try FollowFlowTests.Follow()
        let spanishAccount = ScriptedRideCommands(session: follow.service.session, language: "es")
        let noAccount = ScriptedRideCommands(session: follow.service.session, language: nil)
        var french = Settings.standard
        french.language = "fr"
        let locale = ["LANG": "fr_FR.UTF-8"]
        #expect(await DeviceLanguage.book(settings: french, using: spanishAccount, environment: [:]).language == .fr, "the saved setting first")
        #expect(await DeviceLanguage.book(settings: nil, using: spanishAccount, environment: locale).language == .es, "then the account's")
        #expect(await DeviceLanguage.book(settings: nil, using: noAccount, environment: locale).language == .fr, "then the locale")
        #expect(await DeviceLanguage.book(settings: nil, using: noAccount, environment: ["LANG": "C.UTF-8"]).language == .en)
        #expect(DeviceLanguage.system(["LC_ALL": "es_ES.UTF-8", "LANG": "fr_FR.UTF-8"]) == .es, "LC_ALL before LANG")
        #expect(DeviceLanguage.system(["LC_ALL": "", "LC_MESSAGES": "fr_CA", "LANG": "es_ES"]) == .fr)
        #expect(DeviceLanguage.system(["LANG": "de_DE.UTF-8"]) == nil)
        #expect(DeviceLanguage.local(settings: french, environment: ["LANG": "es_ES"]).language == .fr)
        #expect(DeviceLanguage.local(settings: .standard, environment: ["LANG": "es_ES"]).language == .es)
    }

    @Test("an error from a service that answered is told in the account's language")
    func errorsInTheAccountsLanguage() async throws {
        let follow = try FollowFlowTests.Follow()
        let spanishAccount = ScriptedRideCommands(session: follow.service.session, language: "es")
        // A refusal: the service answered, so the account's language is asked (no setting saved here).
        let refused = RideClientError.rejected(APIProblem(status: 404, code: APIErrorCode(rawValue: "not_found"), message: "ride KKKK not found"))
        let book = await PersonalBook.forFailure(refused, using: spanishAccount)
        let settingsSaysOtherwise = ((try? loadSettings())?.phraseLanguage).map { $0 != .en } ?? false
        if !settingsSaysOtherwise {
            #expect(book.language == .es)
            #expect(ErrorWords.sentence(refused, server: "http://x", in: book).hasPrefix(Phrasebook(.es)(.errorNotFound)))
        }
        // A service that cannot be reached is not asked again.
        let down = await PersonalBook.forFailure(RideClientError.notAnswering("refused"), using: spanishAccount)
        #expect(down.language == PersonalBook.current.language)
    }

    // MARK: No English in Spanish and French failures

    /// Words only English has, as whole words.
    static let englishWords: Set<String> = ["the", "your", "you", "try", "again", "cannot", "ride", "check", "not", "with", "and",
                                            "is", "was", "there", "which", "one", "called", "give", "configured"]

    static func english(in sentence: String) -> [String] {
        sentence.lowercased().split { !$0.isLetter }.map(String.init).filter { englishWords.contains($0) }
    }

    @Test("the CLI's failures in Spanish and French have no English in them", arguments: [Language.es, .fr])
    func failuresWithoutEnglish(language: Language) {
        let book = Phrasebook(language)
        var sentences: [String] = []
        let server = ErrorWords.configuredServer(in: book, environment: ["XDG_CONFIG_HOME": "/nonexistent-rb-config"])
        #expect(server == book(.errorConfiguredServer), "no address at hand: said in words of her language")
        for error: RideClientError in [.notAnswering("x"), .unreachable("x"), .timeout("x"), .invalidResponse("x"), .cancelled,
                                       .serverFailure(APIProblem(status: 503, code: APIErrorCode(rawValue: "unavailable"), message: "down"))] {
            sentences.append(ErrorWords.sentence(error, server: server, in: book))
        }
        // What `RideBeacon.main` says of a failure outside a command's service.
        sentences.append(ErrorWords.sentence(for: RideClientError.notAnswering("x"), message: "", arguments: [], root: RideBeacon.self, in: book))
        let codes = ["unauthenticated", "forbidden", "not_found", "rate_limited", "invalid_json", "illegal_transition", "already_taken",
                     "passenger_has_active_ride", "driver_has_active_ride", "invalid_sign_in_code", "wrong_ride_word", "ride_word_locked",
                     "ride_event_limit", "internal", "something_new"]
        for code in codes {
            let problem = APIProblem(status: 409, code: APIErrorCode(rawValue: code), message: "the service's English words")
            sentences.append(ErrorWords.sentence(problem, in: book))
        }
        for field in ["accessibilityNotes", "pickup", "dropoff", "passengerName", "reason", "text", "preset", "vehicle", "vehicleColour",
                      "vehicleMake", "vehicleModel", "vehiclePlate", "driverId", "minutes", "name", "address", "code", "word", "Idempotency-Key"] {
            let problem = APIProblem(status: 400, code: APIErrorCode(rawValue: "invalid_field"), message: "", field: field)
            sentences.append(ErrorWords.sentence(problem, in: book))
        }
        for key: PhraseID in [.cliNothingToCancel, .cliNoRideToFollow, .cliNoAcceptedRideForMessages, .cliDriverNoAcceptedRide,
                              .cliNoServer, .cliNotSignedIn, .cliSignInCodeDigits, .cliDriverCommandOnly] {
            sentences.append(book(key))
        }
        sentences.append(book(.cliRideWasCancelled, ["code": "K7RX"]))
        sentences.append(CompassWords.none("org.freedesktop.DBus.Error.NoServer: no system bus", in: book))
        #expect(!sentences.contains(""))
        for sentence in sentences {
            #expect(Self.english(in: sentence).isEmpty, "English in \(language.rawValue): \(sentence)")
            #expect(!sentence.contains("the service's English words"), "the service's words only with --verbose: \(sentence)")
        }
        // The words a dispatcher's role has in each language (issue 37, point 4).
        let dispatcher = book(.historyByDispatcher)
        #expect(dispatcher == (language == .es ? "por la central de reservas" : "par la centrale de réservation"))
    }

    @Test("which driver, account or token: asked in her language", arguments: [Language.es, .fr])
    func whichOneInHerLanguage(language: Language) throws {
        let book = Phrasebook(language)
        let drivers = WhichOne(kind: "driver", items: ["Ben", "ben", "Chloé"], id: { "\($0.lowercased())-1a2b3c" }, name: { $0 },
                               describe: { $0 }, listCommand: "ridebeacon dispatcher drivers")
        var sentences: [String] = []
        for typed in ["", "BEN", "Zoe"] {
            do { _ = try drivers.pick(typed, in: book) } catch { sentences.append(ErrorWords.make(error.message, in: book)) }
        }
        let none = WhichOne<String>(kind: "account", items: [], id: { $0 }, name: { $0 }, describe: { $0 }, listCommand: "ridebeacon admin accounts")
        do { _ = try none.pick("Ana", in: book) } catch { sentences.append(ErrorWords.make(error.message, in: book)) }
        #expect(sentences.count == 4, "\(sentences)")
        for sentence in sentences { #expect(Self.english(in: sentence).isEmpty, "English in \(language.rawValue): \(sentence)") }
        #expect(sentences[1].contains(book(.whichKindDrivers)) && sentences[3].contains(book(.whichKindAccounts)), "\(sentences)")
        // English keeps its words (the dispatcher's and admin's tests pin them).
        do { _ = try drivers.pick("Zoe", in: .english) } catch {
            #expect(error.message == "no driver is called Zoe; which one? Ben, ben, Chloé")
        }
    }

    // MARK: History: her time, how the ride was confirmed

    @Test("the history's date is the device's local time, its zone named")
    func localDateShowsLocalTime() throws {
        let date = Date(timeIntervalSince1970: 1_795_595_400) // 2026-11-25 08:30 UTC
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        #expect(PlainTable.localDate(date, zone: tokyo).hasPrefix("2026-11-25 17:30 "), "\(PlainTable.localDate(date, zone: tokyo))")
        #expect(PlainTable.localDate(date, zone: newYork).hasPrefix("2026-11-25 03:30 "), "\(PlainTable.localDate(date, zone: newYork))")
        #expect(!PlainTable.localDate(date, zone: tokyo).hasSuffix("UTC"), "the zone is named, not UTC")
        let line = RideHistory.sentence(Script.ride(.completed), in: .english, zone: tokyo)
        #expect(line.hasPrefix(PlainTable.localDate(Script.start, zone: tokyo) + ": "), "\(line)")
    }

    @Test("history says how the ride was confirmed: touch, ride word, operator, in each language", arguments: Language.allCases)
    func historySaysHowConfirmed(language: Language) async throws {
        let book = Phrasebook(language)
        let ways: [(actor: String, detail: String, way: RideConfirmationWay, phrase: PhraseID)] = [
            ("ben", "touch proofs of passenger and driver", .touch, .historyConfirmedByTouch),
            ("ana", "ride word (word proof, weaker than touch)", .rideWord, .historyConfirmedByWord),
            ("operator", "confirmed by an operator (ridebeacon admin confirm-ride)", .operator, .historyConfirmedByOperator),
        ]
        for (actor, detail, way, phrase) in ways {
            // Read from the ride's own history, as `passenger rides` does.
            let follow = try FollowFlowTests.Follow(rides: [Script.ride(.completed)])
            follow.service.send(Script.event(.arrived, sequence: 3, seconds: 30))
            follow.service.send(Script.event(.confirmed, by: actor, detail: detail, sequence: 4, seconds: 60))
            follow.service.send(Script.event(.completed, sequence: 5, seconds: 600))
            let read = await RideHistory.confirmationWay(of: Script.ride(.completed), using: follow.service)
            #expect(read == way)
            let line = try #require(RideHistory.lines(rides: [Script.ride(.completed)], withdrawn: [], ways: ["ride-1": way], in: book).first)
            #expect(line.contains(book(phrase)), "\(line)")
            #expect(line.contains(book(.historyOutcomeCompletedHow, ["how": .text(book(phrase))])), "\(line)")
        }
        // A ride confirmed and not yet completed says it too; one whose places retention erased does not claim a way.
        let now = RideHistory.sentence(Script.ride(.confirmed), confirmed: .rideWord, in: book)
        #expect(now.contains(book(.historyConfirmedByWord)), "\(now)")
        var purged = Script.ride(.completed)
        purged.pickup = ""
        #expect(!RideHistory.saysHowConfirmed(purged) && RideHistory.saysHowConfirmed(Script.ride(.completed)))
        #expect(!RideHistory.saysHowConfirmed(Script.ride(.cancelled)))
    }

    @Test("a ride's history without a confirmation reads as none, and the reading ends")
    func noConfirmationInTheHistory() async throws {
        let follow = try FollowFlowTests.Follow(rides: [Script.ride(.cancelled)])
        follow.service.send(Script.event(.cancelled, by: "ana", sequence: 4, seconds: 60))
        #expect(await RideHistory.confirmationWay(of: Script.ride(.cancelled), using: follow.service) == nil)
    }
}
