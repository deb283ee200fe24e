import BeaconCore
import Foundation
import Synchronization

/// The device's satellite position from GeoClue2 on the system bus (org.freedesktop.GeoClue2,
/// issue 35), through the same D-Bus wrapper as the BlueZ radio and the compass.
///
/// `Manager.GetClient` gives this connection its client object; `DesktopId` and
/// `RequestedAccuracyLevel` (EXACT, 8) are set on it, then `Start`. Each `LocationUpdated(old,
/// new)` names a new Location object, whose Latitude, Longitude, Accuracy, Heading, Speed and
/// Timestamp become one `GeoFix`; the course is kept only while moving faster than
/// `movingSpeed` (GeoClue's Heading is the last one it had, or -1, when still).
///
/// ```swift
/// let location = try await GeoClueLocation.open()   // throws GeoClueLocation.Unavailable
/// for await fix in location.fixes { print(fix.latitude, fix.longitude, fix.accuracyMeters) }
/// await location.close()                            // Stop
/// ```
///
/// GeoClue answers only applications its configuration allows (`/etc/geoclue/geoclue.conf`:
/// a `[ridebeacon]` section with `allowed=true` and `system=true` for a system service).
public final class GeoClueLocation: Sendable {
    public static let service = "org.freedesktop.GeoClue2"
    public static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    static let clientInterface = "org.freedesktop.GeoClue2.Client"
    static let locationInterface = "org.freedesktop.GeoClue2.Location"
    static let properties = "org.freedesktop.DBus.Properties"
    /// GClueAccuracyLevel's EXACT: satellites where the device has them.
    public static let exactAccuracy: UInt32 = 8
    /// Faster than this, m/s, the Heading is a course over ground (a parking car still rolls
    /// slower; a walker is near 1.3, but a walker's course is not the car's: the sharing keeps
    /// only the car's, PositionSharing).
    public static let movingSpeed = 1.0

    /// Why there is no satellite position: no bus, no GeoClue, or GeoClue refused.
    public struct Unavailable: Error, Equatable, CustomStringConvertible {
        public enum Reason: Sendable, Equatable {
            /// No system bus to ask.
            case noBus
            /// GeoClue is not on the bus.
            case notRunning
            /// GeoClue answered no (not allowed by its configuration, no source).
            case refused
        }
        public var reason: Reason
        public var description: String
    }

    /// The fixes as GeoClue gives them; the stream ends when GeoClue leaves the bus or on `close()`.
    public let fixes: AsyncStream<GeoFix>
    /// The client object GeoClue made for this connection.
    public let clientPath: String
    private let feed: AsyncStream<GeoFix>.Continuation
    private let connection: DBusConnection
    private let reader: Task<Void, Never>
    private let closed = Mutex(false)

    private init(connection: DBusConnection, clientPath: String, fixes: AsyncStream<GeoFix>, feed: AsyncStream<GeoFix>.Continuation,
                 reader: Task<Void, Never>) {
        self.connection = connection
        self.clientPath = clientPath
        self.fixes = fixes
        self.feed = feed
        self.reader = reader
    }

    /// Connects to the system bus at `address` (`DBUS_SYSTEM_BUS_ADDRESS`, else the well-known
    /// socket), asks GeoClue for a client as `desktopID` at EXACT accuracy and starts it.
    public static func open(address: String = DBusConnection.systemBusAddress,
                            desktopID: String = "ridebeacon") async throws(Unavailable) -> GeoClueLocation {
        let connection: DBusConnection
        do { connection = try await DBusConnection.open(address: address) } catch {
            throw Unavailable(reason: .noBus, description: "no system bus at \(address): \(error)")
        }
        let (fixes, feed) = AsyncStream<GeoFix>.makeStream(bufferingPolicy: .bufferingNewest(16))
        // Location objects in the order GeoClue announced them, read one at a time off the bus thread.
        let (locations, announce) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let clientPath: String
        do {
            try await connection.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service)'")
            let reply = try await connection.call(service, managerPath, managerInterface, "GetClient", [], timeout: .seconds(5))
            guard let path = reply.first?.stringValue, path.hasPrefix("/") else {
                throw Unavailable(reason: .refused, description: "GeoClue's GetClient answered \(reply), not a client")
            }
            clientPath = path
            connection.setHandlers(method: nil, signal: { signal in
                Self.handle(signal, clientPath: path, announce: announce)
            }, disconnect: { announce.finish() })
            try await connection.addMatch("type='signal',sender='\(service)',path='\(path)',interface='\(clientInterface)',member='LocationUpdated'")
            try await set("DesktopId", .string(desktopID), client: path, on: connection)
            try await set("RequestedAccuracyLevel", .uint32(exactAccuracy), client: path, on: connection)
            _ = try await connection.call(service, path, clientInterface, "Start", [], timeout: .seconds(10))
            // A location GeoClue already had: the signal for it may have gone before our match.
            let current = try await connection.call(service, path, properties, "Get", [.string(clientInterface), .string("Location")],
                                                    timeout: .seconds(5))
            if let location = current.first?.stringValue, location != "/" { announce.yield(location) }
        } catch {
            announce.finish()
            feed.finish()
            await connection.close()
            throw Self.unavailable(error)
        }
        let reader = Task {
            var last: String?
            for await location in locations where location != last {
                last = location
                if let fix = await Self.read(location, on: connection) { feed.yield(fix) }
            }
            feed.finish()
        }
        return GeoClueLocation(connection: connection, clientPath: clientPath, fixes: fixes, feed: feed, reader: reader)
    }

    /// `--positions auto`: GeoClue's fixes when it is there and answers, else nil and why.
    public static func auto(address: String = DBusConnection.systemBusAddress,
                            desktopID: String = "ridebeacon") async -> Result<GeoClueLocation, Unavailable> {
        do { return .success(try await open(address: address, desktopID: desktopID)) } catch { return .failure(error) }
    }

    /// Stops the client (once; a bus already gone stopped it for us) and closes the connection.
    public func close() async {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        if connection.isOpen {
            _ = try? await connection.call(Self.service, clientPath, Self.clientInterface, "Stop", [], timeout: .seconds(2))
        }
        await connection.close()
        reader.cancel()
        feed.finish()
    }

    private static func set(_ name: String, _ value: DBusValue, client: String, on connection: DBusConnection) async throws {
        _ = try await connection.call(service, client, properties, "Set", [.string(clientInterface), .string(name), .variant(value)],
                                      timeout: .seconds(5))
    }

    /// The Location object's properties as a fix; nil when it has no usable position.
    static func read(_ location: String, on connection: DBusConnection) async -> GeoFix? {
        guard let reply = try? await connection.call(service, location, properties, "GetAll", [.string(locationInterface)],
                                                     timeout: .seconds(5)),
              let values = reply.first?.stringKeyedDictionary else { return nil }
        return fix(from: values)
    }

    /// GeoClue's Location properties as a fix: Heading only at speed (-1 is unknown), the
    /// Timestamp `(tt)` seconds and microseconds (now when it is missing).
    static func fix(from values: [String: DBusValue]) -> GeoFix? {
        guard let latitude = values["Latitude"]?.doubleValue, let longitude = values["Longitude"]?.doubleValue,
              let accuracy = values["Accuracy"]?.doubleValue,
              latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude),
              accuracy.isFinite, accuracy > 0 else { return nil }
        let speed = values["Speed"]?.doubleValue ?? -1
        let heading = values["Heading"]?.doubleValue ?? -1
        let course = speed > movingSpeed && heading >= 0 && heading.isFinite ? heading.truncatingRemainder(dividingBy: 360) : nil
        var unixTime = Date().timeIntervalSince1970
        if case .structure(let fields)? = values["Timestamp"], fields.count == 2,
           case .uint64(let seconds) = fields[0], case .uint64(let microseconds) = fields[1], seconds > 0 {
            unixTime = Double(seconds) + Double(microseconds) / 1e6
        }
        return GeoFix(latitude: latitude, longitude: longitude, accuracyMeters: accuracy, courseDegrees: course, unixTime: unixTime)
    }

    private static func unavailable(_ error: any Error) -> Unavailable {
        if let error = error as? Unavailable { return error }
        guard let error = error as? DBusError else { return Unavailable(reason: .refused, description: "GeoClue: \(error)") }
        if error.name == "org.freedesktop.DBus.Error.ServiceUnknown" || error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return Unavailable(reason: .notRunning, description: "\(service) is not on the system bus (is geoclue running? \(error.name))")
        }
        if error.meansPeerGone {
            return Unavailable(reason: .notRunning, description: "GeoClue did not answer: \(error)")
        }
        return Unavailable(reason: .refused, description: "GeoClue refused: \(error)")
    }

    /// On the bus thread: each `LocationUpdated` names the new Location object; GeoClue leaving
    /// the bus ends the fixes.
    private static func handle(_ signal: DBusMessage, clientPath: String, announce: AsyncStream<String>.Continuation) {
        switch signal.member {
        case "LocationUpdated"?:
            guard signal.path == clientPath, signal.body.count == 2, let new = signal.body[1].stringValue, new != "/" else { return }
            announce.yield(new)
        case "NameOwnerChanged"?:
            if signal.body.count == 3, signal.body[2].stringValue == "" { announce.finish() }
        default:
            return
        }
    }
}
