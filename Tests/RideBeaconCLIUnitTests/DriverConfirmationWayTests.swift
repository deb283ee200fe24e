import Foundation
import Phrasebook
@testable import RideBeaconCLI
import RideClient
import RideSession
import SessionDoubles
import Testing

/// Issue 37, point 8: the driver's device said only "Ride confirmed." however the ride was
/// confirmed, so a ride word Ana gave reached Ben with no sign of it. After that line it now
/// says how, in his language, from the ride's own `confirmed` event (as `passenger rides` reads it).
@Suite("driver arrive says how the ride was confirmed, in process")
struct DriverConfirmationWayTests {
    /// The `confirmed` event the server records for each way (actor, detail), and the sentence it gives.
    static let ways: [(actor: String, detail: String?, phrase: PhraseID)] = [
        ("ana", "ride word (word proof, weaker than touch)", .driverConfirmedByRideWord),
        ("ben", "touch proofs from both sides", .driverConfirmedByTouch),
        ("operator", "confirmed by operator", .driverConfirmedByOperator),
    ]

    @Test("she gives the ride word: his device says so after \"confirmed\", in Spanish and French too",
          arguments: [Language.en, .es, .fr])
    func rideWordReachesTheDriver(language: Language) async throws {
        let arrive = try DriverArriveFlowTests.Arrive(language: language.rawValue, rideWord: "lantern bridge")
        let running = arrive.start()
        let book = Phrasebook(language)
        #expect(await arrive.console.printed(book(.driverArrived, ["code": .text("K7RX"), "name": .text("Ana")])), "\(arrive.console.out)")
        // The server records the state change, then the ride moves: as her `w` does through the service.
        arrive.service.send(Script.event(.confirmed, by: "ana", detail: "ride word (word proof, weaker than touch)", sequence: 5, seconds: 40))
        #expect(await arrive.rides.passenger.confirmByRideWord(rideID: "ride-1", word: "Lantern Bridge") == .confirmed)
        try await running.value
        let said = book(.driverConfirmedByRideWord, ["name": .text("Ana")])
        #expect(Array(arrive.console.out.suffix(2)) == [book(.rideStateConfirmed), said], "\(arrive.console.out)")
        if language == .en { #expect(said == "Ana confirmed the ride with the ride word.") }
    }

    @Test("each way of confirming has its own sentence on his device", arguments: 0..<3)
    func eachWay(index: Int) async throws {
        let way = Self.ways[index]
        let arrive = try DriverArriveFlowTests.Arrive(language: "fr")
        let running = arrive.start()
        let french = Phrasebook(.fr)
        #expect(await arrive.console.printed(french(.driverArrived, ["code": .text("K7RX"), "name": .text("Ana")])), "\(arrive.console.out)")
        arrive.service.send(Script.event(.confirmed, by: way.actor, detail: way.detail, sequence: 5, seconds: 40))
        #expect(arrive.rides.move(to: .confirmed))
        try await running.value
        #expect(arrive.console.out.last == french(way.phrase, ["name": .text("Ana")]), "\(arrive.console.out)")
        // The three sentences differ, so the driver can tell the ways apart.
        #expect(Set(Self.ways.map { french($0.phrase, ["name": .text("Ana")]) }).count == 3)
    }

    @Test("a history that does not tell how adds nothing after \"confirmed\"")
    func silentHistory() async throws {
        let arrive = try DriverArriveFlowTests.Arrive(language: nil)
        let running = arrive.start()
        #expect(await arrive.console.printed("Arrived. Ride K7RX for Ana."), "\(arrive.console.out)")
        // The ride ends before it was confirmed in its history: nothing to tell.
        arrive.service.send(Script.event(.cancelled, by: "dispatcher-7", sequence: 5, seconds: 40))
        #expect(arrive.rides.move(to: .confirmed))
        try await running.value
        #expect(arrive.console.out.last == "Ride confirmed.", "\(arrive.console.out)")
    }
}
