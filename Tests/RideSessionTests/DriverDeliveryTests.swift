import Phrasebook
import RideSession
import RideWire
import Testing

/// What the driver hears of the passenger is said only once it reached her side (issue 37,
/// point 2): "Ana is told you are walking over" after the ride service took his answer, never
/// before; an answer the service did not take is said to be undelivered, in his language, and
/// may be given again.
@Suite("DriverCore: the passenger is said to be told only once she is")
struct DriverDeliveryTests {
    typealias Support = DriverCoreTests

    static func core(language: Language = .en) -> DriverCore {
        var core = DriverLocatorTests.core()
        core.book = Phrasebook(language)
        return core
    }

    static func askToCome(_ core: inout DriverCore, at time: Double) -> [DriverCore.Action] {
        core.handle(.comeRequested(time: time, unixTime: Support.base + time, requestedAt: Support.base + time))
    }

    static let ana: [String: PhraseValue] = ["name": .text("Ana")]

    @Test("c answers her request; \"Ana is told\" only once the answer was delivered", arguments: [Language.en, .es, .fr])
    func comingIsToldAfterDelivery(language: Language) {
        var core = Self.core(language: language)
        let book = Phrasebook(language)
        _ = Self.askToCome(&core, at: 1)
        #expect(core.handle(.key(time: 2, .coming)) == [.answerCome(.coming)], "nothing said before the service took it")
        #expect(core.handle(.posted(.comeAnswer(.coming), time: 3, failure: nil)) == [.tell(book(.driverToldComing, Self.ana))])
        #expect(core.coming)
    }

    @Test("an answer not delivered: he is told she was not told, in his language, and may answer again", arguments: [Language.en, .es, .fr])
    func undeliveredAnswerIsSaidAndOpen(language: Language) {
        var core = Self.core(language: language)
        let book = Phrasebook(language)
        _ = Self.askToCome(&core, at: 1)
        _ = core.handle(.key(time: 2, .staying))
        let failed = core.handle(.posted(.comeAnswer(.staying), time: 3, failure: "the ride service cannot be reached"))
        #expect(failed.contains(.tell(book(.driverAnswerNotDelivered, Self.ana))), "\(failed)")
        #expect(!failed.contains(.tell(book(.driverToldStaying, Self.ana))), "\(failed)")
        #expect(failed.contains { if case .log(let line) = $0 { line.contains("the ride service cannot be reached") } else { false } })
        // Her request is open again: his next key answers it.
        #expect(core.handle(.key(time: 4, .staying)) == [.answerCome(.staying)])
        #expect(core.handle(.posted(.comeAnswer(.staying), time: 5, failure: nil)) == [.tell(book(.driverToldStaying, Self.ana))])
    }

    @Test("c without a request: the move, then \"Ana is told\" once posted; not posted, c may be pressed again")
    func comingMoveIsToldAfterDelivery() {
        var core = Self.core()
        #expect(core.handle(.key(time: 0, .coming)) == [.meeting(.coming)])
        let failed = core.handle(.posted(.meeting(.coming), time: 1, failure: "offline"))
        #expect(failed.contains(.tell(Phrasebook.english(.driverAnswerNotDelivered, Self.ana))))
        #expect(!core.coming)
        #expect(core.handle(.key(time: 2, .coming)) == [.meeting(.coming)], "not 'already coming': she was never told")
        #expect(core.handle(.posted(.meeting(.coming), time: 3, failure: nil)) == [.tell(Phrasebook.english(.driverToldComing, Self.ana))])
    }

    @Test("y: \"Ana is told to listen\" once his answer was delivered; not delivered, he is told so and may press y again")
    func soundAnswerIsToldAfterDelivery() {
        var core = Self.core()
        _ = DriverLocatorTests.request(&core, at: 0)
        #expect(core.handle(.key(time: 2, .done)) == [.answerLocator(.horn)], "nothing said before the service took it")
        let failed = core.handle(.posted(.locatorAnswer(.horn), time: 3, failure: "offline"))
        #expect(failed.contains(.tell(Phrasebook.english(.driverAnswerNotDelivered, Self.ana))), "\(failed)")
        #expect(!failed.contains(.tell(Phrasebook.english(.driverToldListen, Self.ana))))
        #expect(core.handle(.key(time: 4, .done)) == [.answerLocator(.horn)], "her request is open again")
        #expect(core.handle(.posted(.locatorAnswer(.horn), time: 5, failure: nil)) == [.tell(Phrasebook.english(.driverToldListen, Self.ana))])
    }

    @Test("the device's operator lines are in his language")
    func logLinesAreTranslated() {
        var core = Self.core(language: .fr)
        #expect(core.handle(.key(time: 0, .coming)) == [.meeting(.coming)])
        let failed = core.handle(.posted(.meeting(.coming), time: 1, failure: "hors ligne"))
        #expect(failed.contains(.log(Phrasebook(.fr)(.driverLogNotDelivered, ["what": .text("driver_coming"), "reason": .text("hors ligne")]))))
        #expect(Phrasebook(.fr)(.driverLogRadioRestored) != Phrasebook.english(.driverLogRadioRestored))
    }
}
