import Foundation
import Synchronization

/// feedbackd's `org.sigxcpu.Feedback` on the session bus (the haptic/LED/sound daemon of Linux
/// phones: Phosh, GNOME Calls), through the same D-Bus wrapper as the BlueZ radio and the
/// desktop notifications. `TriggerFeedback(app_id, event, hints, timeout) -> id` runs the
/// current theme's feedbacks for `event`; `FeedbackEnded(id, reason)` says they are over.
/// Which vibration an event makes is the theme's (deploy/feedbackd/ridebeacon.json).
public final class FeedbackClient: Sendable {
    public static let service = "org.sigxcpu.Feedback"
    public static let path = "/org/sigxcpu/Feedback"

    private let connection: DBusConnection
    public let appID: String
    /// The ids of the `FeedbackEnded` signals heard, in order.
    private let ended = Mutex<[UInt32]>([])

    private init(connection: DBusConnection, appID: String) {
        self.connection = connection
        self.appID = appID
    }

    /// Connects to the session bus and makes sure feedbackd is there (running, or started by
    /// the bus on demand); throws `DBusError` saying which is missing.
    public static func open(address: String? = DesktopNotifications.sessionBusAddress,
                            appID: String = "org.ridebeacon.Guide") async throws -> FeedbackClient {
        guard let address else {
            throw DBusError(name: "org.freedesktop.DBus.Error.NoServer", message: "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
        }
        let connection = try await DBusConnection.open(address: address)
        let client = FeedbackClient(connection: connection, appID: appID)
        do {
            let owned = try await connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                  "NameHasOwner", [.string(service)])
            if owned.first?.boolValue != true {
                let names = try await connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                      "ListActivatableNames")
                let activatable = names.first?.arrayElements?.contains { $0.stringValue == service } ?? false
                guard activatable else {
                    throw DBusError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "feedbackd is not running on the session bus")
                }
            }
            connection.setHandlers(method: nil, signal: { [client] signal in client.handle(signal) }, disconnect: nil)
            try await connection.addMatch("type='signal',interface='\(service)',member='FeedbackEnded'")
        } catch {
            await connection.close()
            throw error
        }
        return client
    }

    /// Triggers `event`'s feedbacks once (`timeout` -1) and returns feedbackd's id for it.
    /// `hints`: feedbackd's per-event hints (e.g. `profile`: quiet = haptic only).
    @discardableResult
    public func trigger(_ event: String, hints: [String: DBusValue] = [:], timeout: Int32 = -1) async throws -> UInt32 {
        let dictionary = DBusValue.dictionary(keySignature: "s", valueSignature: "v", hints.sorted { $0.key < $1.key }.map {
            DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value))
        })
        let reply = try await connection.call(Self.service, Self.path, Self.service, "TriggerFeedback",
                                              [.string(appID), .string(event), dictionary, .int32(timeout)],
                                              timeout: .seconds(2))
        guard case .uint32(let id)? = reply.first else {
            throw DBusError(name: "org.freedesktop.DBus.Error.InvalidSignature", message: "TriggerFeedback answered \(reply), not an id")
        }
        return id
    }

    /// The ids of the `FeedbackEnded` signals heard so far, in order.
    public var endedIDs: [UInt32] { ended.withLock { $0 } }

    private func handle(_ signal: DBusMessage) {
        guard signal.kind == .signal, signal.interface == Self.service, signal.member == "FeedbackEnded",
              case .uint32(let id)? = signal.body.first else { return }
        ended.withLock { $0.append(id) }
    }

    public func close() async {
        await connection.close()
    }
}
