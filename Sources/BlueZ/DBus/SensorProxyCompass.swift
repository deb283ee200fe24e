import Synchronization
import RadioCore

/// iio-sensor-proxy's compass on the system bus (net.hadess.SensorProxy, object
/// /net/hadess/SensorProxy/Compass, interface net.hadess.SensorProxy.Compass), through the same
/// D-Bus wrapper the BlueZ radio uses. The sensor is powered only while claimed: `open` claims
/// it, `release` gives it back.
///
/// ```swift
/// let compass = try await SensorProxyCompass.open()   // throws SensorProxyCompass.Unavailable
/// for await reading in compass.readings { guide.heading(reading.degrees) }
/// await compass.release()
/// ```
///
/// iio-sensor-proxy's own bus policy lets only the `geoclue` user read the compass, so on a
/// stock system `open` throws AccessDenied as `Unavailable` and the guide times its turns.
public final class SensorProxyCompass: Compass {
    static let service = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy/Compass"
    static let interface = "net.hadess.SensorProxy.Compass"
    static let properties = "org.freedesktop.DBus.Properties"

    /// Why no compass can be used: no bus, no service, no sensor, or the bus refused.
    public struct Unavailable: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public let name = "iio-sensor-proxy"
    public let readings: AsyncStream<CompassReading>
    private let feed: AsyncStream<CompassReading>.Continuation
    private let connection: DBusConnection
    private let released = Mutex(false)

    private init(connection: DBusConnection, readings: AsyncStream<CompassReading>, feed: AsyncStream<CompassReading>.Continuation) {
        self.connection = connection
        self.readings = readings
        self.feed = feed
    }

    /// Connects to the system bus at `address` (`DBUS_SYSTEM_BUS_ADDRESS`, else the well-known
    /// socket), checks `HasCompass`, calls `ClaimCompass` and follows `CompassHeading` through
    /// PropertiesChanged. Throws `Unavailable` saying why there is no compass to use.
    public static func open(address: String = DBusConnection.systemBusAddress) async throws(Unavailable) -> SensorProxyCompass {
        let connection: DBusConnection
        do { connection = try await DBusConnection.open(address: address) } catch {
            throw Unavailable(description: "no system bus at \(address): \(error)")
        }
        let (readings, feed) = AsyncStream<CompassReading>.makeStream(bufferingPolicy: .bufferingNewest(64))
        connection.setHandlers(method: nil, signal: { signal in Self.handle(signal, feed) }, disconnect: { feed.finish() })
        do {
            try await connection.addMatch("type='signal',sender='\(service)',path='\(path)',interface='\(properties)',member='PropertiesChanged'")
            try await connection.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service)'")
            guard try await property("HasCompass", on: connection).boolValue == true else {
                throw Unavailable(description: "iio-sensor-proxy has no compass (HasCompass is false)")
            }
            _ = try await connection.call(service, path, interface, "ClaimCompass", [], timeout: .seconds(5))
            // The heading so far: a still phone may not change it for a while.
            if let degrees = try await property("CompassHeading", on: connection).doubleValue, degrees >= 0 {
                feed.yield(CompassReading(degrees: degrees, unixMicroseconds: RadioSighting.unixMicrosecondsNow()))
            }
        } catch {
            feed.finish()
            await connection.close()
            throw Self.unavailable(error)
        }
        return SensorProxyCompass(connection: connection, readings: readings, feed: feed)
    }

    /// `--compass auto`: the compass when iio-sensor-proxy is on the bus and has one, else nil
    /// (turn-to-find times the turn); and one line saying which, for the log.
    public static func auto(address: String = DBusConnection.systemBusAddress) async -> (compass: SensorProxyCompass?, said: String) {
        do {
            let compass = try await open(address: address)
            return (compass, "compass: iio-sensor-proxy; turn-to-find follows the heading")
        } catch {
            return (nil, "compass: none (\(error)); turn-to-find times the turn")
        }
    }

    /// Calls `ReleaseCompass` (once; a bus already gone released it for us) and closes the connection.
    public func release() async {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        feed.finish()
        if connection.isOpen {
            _ = try? await connection.call(Self.service, Self.path, Self.interface, "ReleaseCompass", [], timeout: .seconds(2))
        }
        await connection.close()
    }

    private static func property(_ name: String, on connection: DBusConnection) async throws -> DBusValue {
        let reply = try await connection.call(service, path, properties, "Get", [.string(interface), .string(name)], timeout: .seconds(5))
        return reply.first?.unwrapped ?? .variant(.string(""))
    }

    private static func unavailable(_ error: any Error) -> Unavailable {
        if let error = error as? Unavailable { return error }
        guard let error = error as? DBusError else { return Unavailable(description: "iio-sensor-proxy: \(error)") }
        if error.meansPeerGone {
            return Unavailable(description: "\(service) is not on the system bus (is iio-sensor-proxy running? \(error.name))")
        }
        if error.name == "org.freedesktop.DBus.Error.AccessDenied" {
            return Unavailable(description: "the system bus refused the compass (iio-sensor-proxy lets only geoclue read it): \(error.message)")
        }
        return Unavailable(description: "iio-sensor-proxy: \(error)")
    }

    /// On the bus thread: a new `CompassHeading` (−1, unknown, is skipped) is a reading; the
    /// sensor or the service going away ends the readings.
    private static func handle(_ signal: DBusMessage, _ feed: AsyncStream<CompassReading>.Continuation) {
        switch signal.member {
        case "PropertiesChanged"?:
            guard signal.path == path, signal.body.first?.stringValue == interface,
                  let changed = signal.body.dropFirst().first?.stringKeyedDictionary else { return }
            if changed["HasCompass"]?.boolValue == false { return feed.finish() }
            if let degrees = changed["CompassHeading"]?.doubleValue, degrees >= 0, degrees.isFinite {
                feed.yield(CompassReading(degrees: degrees, unixMicroseconds: RadioSighting.unixMicrosecondsNow()))
            }
        case "NameOwnerChanged"?:
            // arg0 is the service (the match rule); an empty new owner means it left the bus.
            if signal.body.count == 3, signal.body[2].stringValue == "" { feed.finish() }
        default:
            return
        }
    }
}
