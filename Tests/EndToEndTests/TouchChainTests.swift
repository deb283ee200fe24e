import AsyncHTTPClient
import BeaconCore
import HCITransports
import RadioCore
import Foundation
import NIOCore
import RideBeaconTesting
import Testing

/// Issue 6's whole chain on real parts: a real `ridebeacon serve` issues the ride key; the
/// driver advertises the ride's rotating identity through the h4 radio on one Bumble virtual
/// controller and the passenger recognises it through another, and the other way round; both
/// post touch proofs; the ride is confirmed and the confirmation arrives on the live streams.
@Suite("Touch chain: server, Bumble radios, identities", .tags(.bumble, .process), .timeLimit(.minutes(3)))
struct TouchChainTests {
    @Test(.enabled(if: BumbleControllers.shouldRun, "needs .venv with bumble (make test creates it)"))
    func driverAndPassengerRecogniseEachOtherAndConfirmTheRide() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let api = TestAPI(base: server.baseURL)
        let passenger = try await server.createAccount(role: "passenger", name: "Ana")
        let driver = try await server.createAccount(role: "driver", name: "Ben", vehicle: "blue Toyota Prius")
        let dispatcher = try await server.createAccount(role: "dispatcher", name: "Dot")

        let request = try await api.call(.POST, "/v1/ride-requests", token: passenger,
                                          json: #"{"passengerName":"Ana","pickup":"Main St 1","dropoff":"Station"}"#)
        let requestID = try #require(request.json["id"] as? String)
        let accepted = try await api.call(.POST, "/v1/ride-requests/\(requestID)/accept", token: driver)
        let rideID = try #require(accepted.json["id"] as? String)
        let key = try #require(Data(base64Encoded: accepted.json["key"] as? String ?? ""), "the driver gets the ride key")
        let period = try #require(accepted.json["identityPeriodSeconds"] as? Int)
        let passengersView = try await api.call(.GET, "/v1/rides/\(rideID)", token: passenger)
        #expect(passengersView.json["key"] as? String == key.base64EncodedString(), "the passenger gets the same key")
        #expect(try await api.call(.GET, "/v1/rides/\(rideID)", token: dispatcher).json["key"] == nil)

        let passengerStream = try await EventStream.open(base: server.baseURL, path: "/v1/rides/\(rideID)/events", token: passenger)
        let dispatcherStream = try await EventStream.open(base: server.baseURL, path: "/v1/events", token: dispatcher)
        defer { passengerStream.close(); dispatcherStream.close() }
        #expect(try await api.call(.POST, "/v1/rides/\(rideID)/arrive", token: driver).status == 200)

        let bumble = try BumbleControllers()
        defer { bumble.stop() }
        let driverRadio = try await HCIRadio.connect(RadioSelection(parsing: bumble.radioArgument(0)).hciTransport())
        let passengerRadio = try await HCIRadio.connect(RadioSelection(parsing: bumble.radioArgument(1)).hciTransport())
        let identity = try RotatingIdentity(rideKey: key, period: period)
        let slot = identity.slot(at: Date().timeIntervalSince1970)
        // Each side advertises its own label's identity for the current slot (Bumble relays
        // connectable ADV_IND; its RSSI is a fixed -50 dBm, which stands in for touch range here).
        try await driverRadio.startAdvertising(BeaconAdvertisement(
            beacon: identity.identity(of: .driver, slot: slot).beacon(measuredPower: -59), intervalMilliseconds: 50, type: .connectable))
        try await passengerRadio.startAdvertising(BeaconAdvertisement(
            beacon: identity.identity(of: .passenger, slot: slot).beacon(measuredPower: -59), intervalMilliseconds: 50, type: .connectable))

        // The passenger knows only the key: IdentityMatcher recognises the driver among whatever it hears.
        async let passengerSaw = Observation.recognise(on: passengerRadio, IdentityMatcher(identity: identity, lookingFor: .driver))
        async let driverSaw = Observation.recognise(on: driverRadio, IdentityMatcher(identity: identity, lookingFor: .passenger))
        let (seenByPassenger, seenByDriver) = try await (passengerSaw, driverSaw)
        #expect(seenByPassenger.identity == identity.identity(of: .driver, slot: seenByPassenger.slot))
        #expect(seenByDriver.identity == identity.identity(of: .passenger, slot: seenByDriver.slot))
        #expect(seenByPassenger.peakRssi == -50)
        await driverRadio.shutdown()
        await passengerRadio.shutdown()

        let first = try await api.call(.POST, "/v1/rides/\(rideID)/touch-proofs", token: passenger, json: seenByPassenger.proofJSON)
        #expect(first.status == 200 && first.json["outcome"] as? String == "awaiting_counterpart", "\(first.json)")
        let second = try await api.call(.POST, "/v1/rides/\(rideID)/touch-proofs", token: driver, json: seenByDriver.proofJSON)
        #expect(second.status == 200 && second.json["outcome"] as? String == "confirmed", "\(second.json)")
        // The same proof again is a replay.
        let replay = try await api.call(.POST, "/v1/rides/\(rideID)/touch-proofs", token: driver, json: seenByDriver.proofJSON)
        #expect(replay.status == 409)

        for stream in [passengerStream, dispatcherStream] {
            let text = await stream.wait { $0.contains("event: confirmed") }
            #expect(text.contains("event: confirmed") && text.contains(rideID))
        }
        #expect(try await api.call(.GET, "/v1/rides/\(rideID)", token: passenger).json["state"] as? String == "confirmed")
    }
}

/// What one side recognised of its counterpart's beacon: enough for a touch proof.
struct Observation: Sendable {
    var identity: BeaconIdentity
    var slot: UInt64
    var peakRssi: Int
    var samples: Int
    var lastSeen: Date

    /// Scans until `matcher` has recognised the counterpart in a few advertisements.
    static func recognise(on radio: HCIRadio, _ matcher: IdentityMatcher, needed: Int = 5) async throws -> Observation {
        try await withThrowingTaskGroup(of: Observation.self) { group in
            group.addTask {
                var matcher = matcher
                var seen: Observation?
                for try await event in radio.scan() {
                    guard case .sighting(let sighting) = event, let beacon = sighting.beacon else { continue }
                    let at = Double(sighting.unixMicroseconds) / 1_000_000
                    guard let slot = matcher.match(beacon, at: at) else { continue }
                    let rssi = Int(sighting.rssi ?? -127)
                    seen = Observation(identity: BeaconIdentity(beacon), slot: slot, peakRssi: max(seen?.peakRssi ?? -127, rssi),
                                       samples: (seen?.samples ?? 0) + 1, lastSeen: Date(timeIntervalSince1970: at))
                    if let seen, seen.samples >= needed { return seen }
                }
                throw FixtureError( "scan ended before the counterpart was recognised")
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                throw FixtureError( "counterpart not recognised within 30 s")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    var proofJSON: String {
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(lastSeen)
        return #"{"uuid":"\#(identity.uuid.uuidString)","major":\#(identity.major),"minor":\#(identity.minor),"slot":\#(slot),"peakRssiDbm":\#(peakRssi),"samples":\#(samples),"observedAt":"\#(time)"}"#
    }
}

/// JSON over HTTP to the live server.
struct TestAPI {
    let base: String

    enum Verb { case GET, POST }

    func call(_ verb: Verb, _ path: String, token: String, json: String? = nil) async throws -> (status: Int, json: [String: Any]) {
        var request = HTTPClientRequest(url: base + path)
        request.method = verb == .POST ? .POST : .GET
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8))) as? [String: Any] ?? [:]
        return (Int(response.status.code), object)
    }
}

/// A live event stream read in the background; the test waits for text to appear.
final class EventStream: Sendable {
    private actor Text {
        var value = ""
        func append(_ more: String) { value += more }
    }

    private let text = Text()
    private let task: Task<Void, Never>

    static func open(base: String, path: String, token: String) async throws -> EventStream {
        var request = HTTPClientRequest(url: base + path)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        return EventStream(try await HTTPClient.shared.execute(request, timeout: .seconds(120)))
    }

    private init(_ response: HTTPClientResponse) {
        let text = self.text
        task = Task {
            do {
                for try await chunk in response.body { await text.append(String(buffer: chunk)) }
            } catch {}
        }
    }

    /// The text so far once `done` holds, or after 20 s (the caller's expectation then fails).
    func wait(_ done: @Sendable (String) -> Bool) async -> String {
        for _ in 0..<200 {
            let now = await text.value
            if done(now) { return now }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return await text.value
    }

    func close() { task.cancel() }
}
