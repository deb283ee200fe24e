import BeaconCore
import Foundation
import Guide
import Phrasebook
import RadioCore
@testable import RideBeaconCLI
import RideClient
import RideSession
import SessionDoubles
import Testing

/// `driver arrive`, in process: the arrival said in the driver's language, the ride's beacon on
/// the radio until the ride ends, the passenger's messages said as they come, and the closing
/// line or failure; over InMemoryRideService (the session's rules) and a scripted radio.
@Suite("driver arrive's flow, in process")
struct DriverArriveFlowTests {
    struct Arrive {
        let rides: InMemoryRideService
        let service: ScriptedRideCommands
        let radio = ScriptedRadio(clock: VirtualClock(unixTime: Script.start.timeIntervalSince1970))
        let console = ConsoleRecorder()
        let command: DriverArriveCommand

        init(language: String?, rideWord: String? = nil) throws {
            let identity = try RotatingIdentity(rideKey: Script.rideKey, period: 60)
            rides = InMemoryRideService(rideID: "ride-1", identity: identity, state: .arrived, rideWord: rideWord, clock: SystemClock())
            service = ScriptedRideCommands(session: rides.driver, rides: [Script.ride(.accepted)], language: language)
            command = try DriverArriveCommand.parse(["K7RX", "--radio", "sim", "--audio-out", "none", "--positions", "off"])
        }

        /// Runs the flow on this device: no settings file, no keyboard, no signal, this radio.
        func start() -> Task<Void, any Error> {
            let device = DriverArriveCommand.Device(
                settings: { nil }, keys: { _ in DriverKeys(enter: AsyncStream { $0.finish() }, others: AsyncStream { $0.finish() }) },
                interrupted: { try? await Task.sleep(for: .seconds(86_400)) }, openRadio: { [radio] _ in radio }, notifications: { nil })
            return Task { [command, service, console] in
                try await console.record {
                    try await command.meet(client: service, radio: .sim, touch: Calibration(model: .default), device: device)
                }
            }
        }
    }

    @Test("arrives, says so in his account's language, advertises until the ride is confirmed")
    func arrivesAndEndsConfirmed() async throws {
        let arrive = try Arrive(language: "es")
        let running = arrive.start()
        let spanish = Phrasebook(.es)
        let arrived = spanish(.driverArrived, ["code": .text("K7RX"), "name": .text("Ana")])
        #expect(await arrive.console.printed(arrived), "\(arrive.console.out)\n\(arrive.console.err)")
        #expect(arrive.service.arrivals == ["K7RX"])
        #expect(arrive.console.out.first == arrived, "the arrival is the first line: \(arrive.console.out)")
        #expect(arrive.rides.move(to: .confirmed))
        try await running.value
        #expect(arrive.console.out.last == spanish(.rideStateConfirmed), "\(arrive.console.out)")
        let calls = arrive.radio.calls
        #expect(calls.contains { if case .startAdvertising = $0 { true } else { false } }, "\(calls)")
        #expect(calls.contains(.stopAdvertising) && calls.contains(.shutdown) && arrive.radio.advertised == nil, "\(calls)")
    }

    @Test("a cancelled ride ends the flow with one sentence naming the ride, and the beacon stops")
    func cancelledRide() async throws {
        let arrive = try Arrive(language: nil)
        let running = arrive.start()
        #expect(await arrive.console.printed("Arrived. Ride K7RX for Ana."), "\(arrive.console.out)\n\(arrive.console.err)")
        #expect(arrive.rides.move(to: .cancelled))
        let failure = await #expect(throws: CommandLineFailure.self) { try await running.value }
        #expect(failure?.message == "Ride K7RX was cancelled.")
        #expect(arrive.radio.advertised == nil && arrive.radio.calls.contains(.shutdown), "\(arrive.radio.calls)")
    }

    @Test("the passenger's message is said in the driver's language, once")
    func messageInHisLanguage() async throws {
        let arrive = try Arrive(language: "es")
        let message = Script.event(.arrived, kind: .passengerMessage, by: "ana", detail: MessagePreset.guideDog.sentence, sequence: 4, seconds: 30)
        arrive.service.send(message)
        let running = arrive.start()
        let heard = Phrasebook(.es)(.messageHeard, ["name": .text("Ana"), "text": .text("Llevo un perro guía.")])
        #expect(await arrive.console.printed(heard), "\(arrive.console.out)")
        arrive.service.send(message)
        #expect(arrive.rides.move(to: .confirmed))
        try await running.value
        #expect(arrive.console.out.filter { $0 == heard }.count == 1, "\(arrive.console.out)")
    }

    @Test("a restarted arrive carries on when the ride is already arrived")
    func alreadyArrived() async throws {
        let arrive = try Arrive(language: nil)
        arrive.service.onArrive { _ throws(RideClientError) in
            throw .rejected(APIProblem(status: 409, code: .illegalTransition, message: "ride K7RX is already arrived", state: .arrived))
        }
        let running = arrive.start()
        #expect(await arrive.console.printed("Arrived. Ride K7RX for Ana."), "\(arrive.console.out)\n\(arrive.console.err)")
        #expect(arrive.rides.move(to: .confirmed))
        try await running.value
        #expect(arrive.console.out.last == "Ride confirmed.", "\(arrive.console.out)")
    }

    @Test("what the driver's device speaks as well as prints: what to do, not the touch's progress")
    func spokenLines() {
        let book = Phrasebook.english
        #expect(DriverArriveCommand.spoken("Message from Ana: I have a guide dog.", in: book))
        #expect(DriverArriveCommand.spoken(DriverPhrase.passengerLookingForCar.text(in: book), in: book))
        let progress = DriverPhrase.allCases.filter { $0 != .passengerLookingForCar }
        #expect(!progress.isEmpty && progress.allSatisfy { !DriverArriveCommand.spoken($0.text(in: book), in: book) })
    }
}
