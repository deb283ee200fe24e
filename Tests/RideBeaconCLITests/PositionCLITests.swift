import AsyncHTTPClient
import Foundation
import RideBeaconTesting
import Testing

/// `--position` and `--positions` (issue 35) on the two devices' commands: bad values in one
/// line, the given or GeoClue's position reaching the ride's other party through the server,
/// and a device without GeoClue said once, plainly.
@Suite("ridebeacon --position and --positions", .tags(.process), .timeLimit(.minutes(2)))
struct PositionCLITests {
    @Test("a bad --position or --positions is one line naming the option, and the command does not start")
    func badValuesAreOneLine() async throws {
        let cases: [([String], String)] = [
            (["driver", "arrive", "R1", "--radio", "sim", "--position", "91,4"], "--position: latitude must be -90 to 90 degrees"),
            (["passenger", "guide", "--radio", "sim", "--position", "52.37"], "--position: expected LAT,LON or LAT,LON,ACCURACY"),
            (["passenger", "guide", "--radio", "sim", "--position", "52.37,4.89,-3"], "--position: accuracy must be more than 0"),
            (["driver", "arrive", "R1", "--radio", "sim", "--positions", "sometimes"], "--positions"),
            (["passenger", "guide", "--radio", "sim", "--position", "52,4", "--positions", "off"], "--positions off shares none: choose one"),
        ]
        for (arguments, words) in cases {
            let result = try await CLI.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderrLines.count == 1 && result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
    }

    /// A service, a GeoClue on a private bus, and Ana's ride accepted by the driver.
    static func acceptedRideWithGeoClue() async throws -> (RideServiceFixture, GeoClueMock, String) {
        let service = try await RideServiceFixture()
        let geoclue = try await GeoClueMock()
        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rideID = try await service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (service, geoclue, rideID)
    }

    @Test("the driver's GeoClue position and the passenger's --position reach each other; no GeoClue is said once")
    func theDevicesSharePositions() async throws {
        let (service, geoclue, rideID) = try await Self.acceptedRideWithGeoClue()
        defer { geoclue.stop() }

        var herEnvironment = service.environment(token: service.passengerToken)
        herEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/ridebeacon-test-bus"
        let guide = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", "none", "--rate", "200", "--compass", "off",
                                           "--position", "52.3731,4.8926,6"], environment: herEnvironment)
        #expect(await guide.wait { _, err in err.contains("ridebeacon: position: 52.3731,4.8926,6 (--position), shared with the ride's driver") },
                "\(guide.stderr)")

        var hisEnvironment = service.environment(token: service.driverToken)
        hisEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = geoclue.address
        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", "none"],
                                           environment: hisEnvironment)
        #expect(await arrive.wait { _, err in err.contains("ridebeacon: position: GeoClue, shared with the ride's passenger") }, "\(arrive.stderr)")
        #expect(await eventually { (try? geoclue.clients().first?.active) == true }, "the driver's device started its GeoClue client")
        #expect(try geoclue.clients().first?.desktopId == "ridebeacon")
        try geoclue.emit(latitude: 52.37302, longitude: 4.89322, accuracy: 4, unixTime: Date().timeIntervalSince1970)

        // Each sees the other's, through the server.
        #expect(await eventually { (try? await service.otherPosition(rideID, as: service.passengerToken))?["latitude"] as? Double == 52.37302 })
        #expect(await eventually { (try? await service.otherPosition(rideID, as: service.driverToken))?["latitude"] as? Double == 52.3731 })
        let hers = try await service.otherPosition(rideID, as: service.driverToken)
        #expect(hers?["longitude"] as? Double == 4.8926 && hers?["accuracyMeters"] as? Double == 6)

        // Her second device without GeoClue (no --position): one plain sentence, once.
        let other = try BackgroundProcess(["passenger", "guide", rideID, "--radio", "sim", "--audio-out", "none", "--rate", "200", "--compass", "off"],
                                          environment: herEnvironment)
        let sentence = "ridebeacon: No satellite position: GeoClue is not running on this device; guiding uses Bluetooth only."
        #expect(await other.wait { _, err in err.contains(sentence) }, "\(other.stderr)")
        #expect(other.stderr.components(separatedBy: sentence).count == 2, "said once: \(other.stderr)")
        #expect(other.isRunning, "no satellite position is no reason to stop guiding")
        other.stop()
        guide.stop()
        arrive.stop()
        // The driver's device stopped its GeoClue client on the way out.
        #expect(await eventually { (try? geoclue.clients().first?.calls) == ["Start", "Stop"] }, "\((try? geoclue.clients()) ?? [])")
    }

    @Test("driver arrive --approach shares GeoClue's fixes while the ride is accepted; Enter once parked arrives, with the course the car came in on")
    func approachThenArrival() async throws {
        let (service, geoclue, rideID) = try await Self.acceptedRideWithGeoClue()
        defer { geoclue.stop() }
        var environment = service.environment(token: service.driverToken)
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = geoclue.address
        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", "none",
                                            "--approach"], environment: environment, interactive: true)
        defer { arrive.stop() }
        #expect(await arrive.wait { _, err in err.contains("Press Enter once you have parked.") }, "\(arrive.stderr)")
        #expect(await eventually { (try? geoclue.clients().first?.active) == true })
        let car = { @Sendable () async -> [String: Any]? in try? await service.otherPosition(rideID, as: service.passengerToken) }

        // Driving in on course 92 degrees: shared while the ride is still accepted.
        try geoclue.emit(latitude: 52.37301, longitude: 4.89301, accuracy: 5, heading: 92, speed: 6, unixTime: Date().timeIntervalSince1970)
        #expect(await eventually { await car()?["courseDegrees"] as? Double == 92 }, "\(arrive.stderr)")
        #expect(try await service.rideJSON(rideID)["state"] as? String == "accepted")
        // Stopped: the position moves on, no course from GeoClue.
        try geoclue.emit(latitude: 52.37302, longitude: 4.89322, accuracy: 4, heading: 92, speed: 0, unixTime: Date().timeIntervalSince1970)
        #expect(await eventually { await car()?["longitude"] as? Double == 4.89322 })
        #expect(await car()?["courseDegrees"] == nil)
        // Parked: Enter arrives, and the arrival's report carries the car's course.
        arrive.type("\n")
        #expect(await eventually { (try? await service.rideJSON(rideID)["state"] as? String) == "arrived" }, "\(arrive.stderr)")
        #expect(await eventually { await car()?["courseDegrees"] as? Double == 92 }, "\(arrive.stderr)")
        #expect(await car()?["longitude"] as? Double == 4.89322)

        // Her guide, 30 m west of the car on its kerb, beyond its (simulated, silent) radio:
        // the far field speaks from the two positions.
        var herEnvironment = service.environment(token: service.passengerToken)
        herEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/ridebeacon-test-bus"
        let guide = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", "none", "--rate", "200", "--compass", "off",
                                           "--position", "52.37302,4.89278,4"], environment: herEnvironment)
        defer { guide.stop() }
        #expect(await guide.wait { out, _ in out.contains("By satellite") }, "\(guide.stdout)\n\(guide.stderr)")
    }

    @Test("passenger follow shares her --position once its guide starts at the arrival")
    func followSharesHerPosition() async throws {
        let service = try await RideServiceFixture()
        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rideID = try await service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let follow = try BackgroundProcess(["passenger", "follow", rideID, "--radio", "sim", "--audio-out", "none", "--no-notifications",
                                            "--position", "48.8566,2.3522,7"], environment: service.environment(token: service.passengerToken))
        defer { follow.stop() }
        #expect(await follow.wait { out, _ in out.contains("Ben is on the way") }, "\(follow.stdout)\n\(follow.stderr)")
        #expect(try await service.otherPosition(rideID, as: service.driverToken) == nil, "nothing before her guide runs")
        #expect(try await service.post("/v1/rides/\(rideID)/arrive", as: service.driverToken).0 == 200)
        #expect(await eventually { (try? await service.otherPosition(rideID, as: service.driverToken))?["latitude"] as? Double == 48.8566 },
                "\(follow.stderr)")
        #expect(try await service.otherPosition(rideID, as: service.driverToken)?["accuracyMeters"] as? Double == 7)
    }
}

extension RideServiceFixture {
    /// `GET /v1/rides/{id}/position/other` as `token`: the position object, nil for null.
    fileprivate func otherPosition(_ rideID: String, as token: String) async throws -> [String: Any]? {
        var request = HTTPClientRequest(url: "\(url)/v1/rides/\(rideID)/position/other")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
        return json?["position"] as? [String: Any]
    }
}
