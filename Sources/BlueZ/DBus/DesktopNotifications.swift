import Foundation

/// Desktop notifications (org.freedesktop.Notifications on the session bus) through the same
/// D-Bus wrapper the BlueZ radio uses, so no second D-Bus library enters the package.
/// Each ride keeps one notification that is replaced as the ride changes, instead of a pile.
public final class DesktopNotifications: Sendable {
    static let service = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    private let connection: DBusConnection
    private let appName: String

    private init(connection: DBusConnection, appName: String) {
        self.connection = connection
        self.appName = appName
    }

    /// Where the session bus is: `DBUS_SESSION_BUS_ADDRESS`, else the user's runtime socket.
    public static var sessionBusAddress: String? {
        if let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], FileManager.default.fileExists(atPath: runtime + "/bus") {
            return "unix:path=\(runtime)/bus"
        }
        return nil
    }

    /// Connects to the session bus; throws `DBusError` when there is none or it refuses.
    public static func open(address: String? = sessionBusAddress, appName: String = "RideBeacon") async throws -> DesktopNotifications {
        guard let address else {
            throw DBusError(name: "org.freedesktop.DBus.Error.NoServer", message: "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
        }
        return DesktopNotifications(connection: try await DBusConnection.open(address: address), appName: appName)
    }

    /// Shows a notification, or replaces `replacing` (an id this returned before); returns the
    /// notification's id. Urgency 1 (normal): these are news the user waits for, not alarms.
    @discardableResult
    public func notify(summary: String, body: String, replacing: UInt32 = 0) async throws -> UInt32 {
        let hints = DBusValue.dictionary(keySignature: "s", valueSignature: "v", [
            DBusDictionaryEntry(key: .string("urgency"), value: .variant(.byte(1))),
            DBusDictionaryEntry(key: .string("category"), value: .variant(.string("transfer"))),
        ])
        let reply = try await connection.call(Self.service, Self.path, Self.service, "Notify", [
            .string(appName), .uint32(replacing), .string(""), .string(summary), .string(body),
            .array(elementSignature: "s", []), hints, .int32(-1),
        ])
        guard case .uint32(let id)? = reply.first else {
            throw DBusError(name: "org.freedesktop.DBus.Error.InvalidSignature", message: "Notify answered \(reply), not an id")
        }
        return id
    }

    public func close() async {
        await connection.close()
    }
}
