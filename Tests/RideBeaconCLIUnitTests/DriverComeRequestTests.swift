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

/// `driver arrive`, in process: the passenger's request that he come to her reaches him in his
/// language, his device tells hers it has it, and his key answers it (issue 37, point 2).
@Suite("driver arrive answers her come request, in process")
struct DriverComeRequestTests {
    /// Runs `driver arrive` on this ride with `keys` as his keyboard.
    static func arrive(_ rides: InMemoryRideService, language: String?, keys: AsyncStream<DriverKey>,
                       console: ConsoleRecorder) throws -> (Task<Void, any Error>, ScriptedRideCommands) {
        let service = ScriptedRideCommands(session: rides.driver, rides: [Script.ride(.accepted)], language: language)
        let radio = ScriptedRadio(clock: VirtualClock(unixTime: Script.start.timeIntervalSince1970))
        let command = try DriverArriveCommand.parse(["K7RX", "--radio", "sim", "--audio-out", "none", "--positions", "off"])
        let device = DriverArriveCommand.Device(
            settings: { nil }, keys: { _ in DriverKeys(enter: AsyncStream { $0.finish() }, others: keys) },
            interrupted: { try? await Task.sleep(for: .seconds(86_400)) }, openRadio: { _ in radio }, notifications: { nil })
        let task = Task {
            try await console.record {
                try await command.meet(client: service, radio: .sim, touch: Calibration(model: .default), device: device)
            }
        }
        return (task, service)
    }

    @Test("her request is said in his language and acknowledged; c answers coming, once", arguments: ["en", "es", "fr"])
    func comingAnswer(language: String) async throws {
        let identity = try RotatingIdentity(rideKey: Script.rideKey, period: 60)
        let rides = InMemoryRideService(rideID: "ride-1", identity: identity, state: .arrived, clock: SystemClock())
        let (keys, press) = AsyncStream<DriverKey>.makeStream()
        let console = ConsoleRecorder()
        let (running, _) = try Self.arrive(rides, language: language, keys: keys, console: console)
        let book = Phrasebook(Language(code: language) ?? .en)
        #expect(await console.printed(book(.driverArrived, ["code": .text("K7RX"), "name": .text("Ana")])), "\(console.out)")
        #expect(await rides.passenger.askToCome(rideID: "ride-1") == .asked)
        let asked = book(.driverComeAsked, ["name": .text("Ana")])
        #expect(await console.printed(asked), "\(console.out)")
        #expect(await eventually { rides.calls.contains(.comeAnswered(.received)) }, "his device tells hers it has the request: \(rides.calls)")
        #expect(!rides.calls.contains(.comeAnswered(.coming)), "he has not answered yet")
        press.yield(.coming)
        // "Ana is told you are walking over" only once the ride service took his answer.
        let told = book(.driverToldComing, ["name": .text("Ana")])
        #expect(await console.printed(told), "\(console.out)")
        #expect(rides.calls.contains(.comeAnswered(.coming)), "said before it was delivered: \(rides.calls)")
        #expect(!rides.calls.contains(.meeting(.coming)), "one answer, not a second move: \(rides.calls)")
        #expect(rides.move(to: .confirmed))
        try await running.value
        #expect(console.out.filter { $0 == asked }.count == 1, "\(console.out)")
    }

    @Test("l: he cannot leave the car, and her device is told; l with nothing asked answers nothing")
    func stayingAnswer() async throws {
        let identity = try RotatingIdentity(rideKey: Script.rideKey, period: 60)
        let rides = InMemoryRideService(rideID: "ride-1", identity: identity, state: .arrived, clock: SystemClock())
        let (keys, press) = AsyncStream<DriverKey>.makeStream()
        let console = ConsoleRecorder()
        let (running, _) = try Self.arrive(rides, language: nil, keys: keys, console: console)
        #expect(await console.printed("Arrived. Ride K7RX for Ana."), "\(console.out)")
        press.yield(.staying)
        #expect(await console.printed(Phrasebook.english(.driverNothingToAnswer)), "\(console.out)")
        #expect(await rides.passenger.askToCome(rideID: "ride-1") == .asked)
        #expect(await eventually { rides.calls.contains(.comeAnswered(.received)) }, "\(rides.calls)")
        press.yield(.staying)
        #expect(await eventually { rides.calls.contains(.comeAnswered(.staying)) }, "\(rides.calls)")
        #expect(await console.printed(Phrasebook.english(.driverToldStaying, ["name": .text("Ana")])), "\(console.out)")
        #expect(rides.move(to: .confirmed))
        try await running.value
    }

    @Test("l is the driver's key for staying")
    func stayingKey() {
        #expect(DriverKey(character: "l") == .staying && DriverKey(character: "L") == .staying)
    }

    /// Waits until `condition` holds (a bound against a hang, not a timing claim).
    func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
