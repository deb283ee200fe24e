import CDBus
import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// A private connection to the system bus, owned by one dedicated thread.
///
/// libdbus honours `DBUS_SYSTEM_BUS_ADDRESS`. Only the bus thread touches the `DBusConnection*`:
/// other threads post jobs and wake it through a pipe, so a send never waits for a poll
/// timeout and nothing blocks Swift's cooperative pool. Calls are sent without blocking and
/// their replies matched by serial, so the thread keeps answering calls to our exported objects
/// while one of ours is outstanding — bluetoothd reads an advertisement's properties *before* it
/// replies to RegisterAdvertisement.
public final class DBusConnection: @unchecked Sendable {
    /// Answers a method call addressed to us; nil lets libdbus reply UnknownMethod. Runs on the bus thread.
    public typealias MethodHandler = @Sendable (DBusMessage) -> DBusReply?
    /// Runs on the bus thread for every signal the match rules let through.
    public typealias SignalHandler = @Sendable (DBusMessage) -> Void

    private typealias Job = @Sendable (OpaquePointer?) -> Void
    private struct Shared {
        var jobs: [Job] = []
        var closed = false
        var stopRequested = false
        var methodHandler: MethodHandler?
        var signalHandler: SignalHandler?
        var onDisconnect: (@Sendable () -> Void)?
    }
    private let shared = NIOLockedValueBox(Shared())
    /// Read and write ends of the pipe that wakes the bus thread.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private let finished = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
    private let ended = NIOLockedValueBox(false)

    // Bus thread only.
    private struct Pending {
        var continuation: CheckedContinuation<[DBusValue], any Error>
        var deadline: ContinuousClock.Instant
        var what: String
    }
    private var pending: [UInt32: Pending] = [:]

    /// Our unique name on the bus (":1.42").
    public private(set) var uniqueName = ""

    private init(wake: (read: Int32, write: Int32)) {
        wakeFD = wake.read
        wakeWriteFD = wake.write
    }

    /// Connects to the system bus on a new thread; fails with the bus's own message when it cannot.
    public static func openSystemBus() async throws -> DBusConnection {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw DBusError(name: "org.freedesktop.DBus.Error.Failed", message: "pipe: \(String(cString: strerror(errno)))")
        }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let connection = DBusConnection(wake: (ends[0], ends[1]))
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            let thread = Thread { connection.threadMain(opened) }
            thread.name = "ridebeacon-dbus"
            thread.start()
        }
        return connection
    }

    public func setHandlers(method: MethodHandler?, signal: SignalHandler?, disconnect: (@Sendable () -> Void)?) {
        shared.withLockedValue {
            $0.methodHandler = method
            $0.signalHandler = signal
            $0.onDisconnect = disconnect
        }
    }

    /// False once the bus dropped us or `close()` began.
    public var isOpen: Bool { shared.withLockedValue { !$0.closed && !$0.stopRequested } }

    /// Calls a method and returns its reply's values; an error reply throws `DBusError`.
    public func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
                     _ body: [DBusValue] = [], timeout: Duration = .seconds(10)) async throws -> [DBusValue] {
        let what = "\(interface).\(member) on \(path)"
        return try await withCheckedThrowingContinuation { continuation in
            post { connection in
                guard let connection else {
                    return continuation.resume(throwing: DBusError(name: DBusError.disconnectedName, message: "not connected to the bus"))
                }
                guard let message = dbus_message_new_method_call(destination, path, interface, member) else {
                    return continuation.resume(throwing: DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "bad call \(what)"))
                }
                defer { dbus_message_unref(message) }
                var serial: dbus_uint32_t = 0
                do {
                    try DBusMarshal.append(body, to: message)
                } catch {
                    return continuation.resume(throwing: DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what): \(error)"))
                }
                guard dbus_connection_send(connection, message, &serial) != 0 else {
                    return continuation.resume(throwing: DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: what))
                }
                self.pending[serial] = Pending(continuation: continuation, deadline: .now + timeout, what: what)
            }
        }
    }

    /// Adds a match rule on the bus driver so the signals it names reach the signal handler.
    public func addMatch(_ rule: String) async throws {
        _ = try await call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", [.string(rule)])
    }

    /// Stops the thread, closes the socket and waits until both are gone.
    public func close() async {
        let alreadyEnded = ended.withLockedValue { $0 }
        if alreadyEnded { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let resumeNow = finished.withLockedValue { slot -> Bool in
                if ended.withLockedValue({ $0 }) { return true }
                slot = done
                return false
            }
            if resumeNow { return done.resume() }
            shared.withLockedValue { $0.stopRequested = true }
            wake()
        }
    }

    private func post(_ job: @escaping Job) {
        let accepted = shared.withLockedValue { state -> Bool in
            guard !state.closed else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { wake() } else { job(nil) }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = Glibc.write(wakeWriteFD, &one, 1)
    }

    // MARK: bus thread

    private func threadMain(_ opened: CheckedContinuation<Void, any Error>) {
        dbus_threads_init_default()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error) else {
            let failure = DBusError(name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
                                    message: error.message.map { String(cString: $0) } ?? "cannot connect to the system bus")
            dbus_error_free(&error)
            finish(connection: nil)
            return opened.resume(throwing: failure)
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        var fd: Int32 = -1
        dbus_connection_get_unix_fd(connection, &fd)
        uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
        dbus_connection_add_filter(connection, { connection, message, user in
            guard let connection, let message, let user else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            return Unmanaged<DBusConnection>.fromOpaque(user).takeUnretainedValue().filter(message, on: connection)
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
        opened.resume()
        run(connection, fd: fd)
    }

    private func run(_ connection: OpaquePointer, fd: Int32) {
        while true {
            let jobs = shared.withLockedValue { state in
                defer { state.jobs.removeAll() }
                return state.jobs
            }
            for job in jobs { job(connection) }
            dbus_connection_flush(connection)
            while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
            if dbus_connection_get_is_connected(connection) == 0 { break }
            if shared.withLockedValue({ $0.stopRequested && $0.jobs.isEmpty }) { break }
            if shared.withLockedValue({ !$0.jobs.isEmpty }) { continue }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, pollTimeoutMilliseconds())
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeFD, &drain, drain.count) > 0 {}
            }
            if fds[0].revents != 0 { _ = dbus_connection_read_write(connection, 0) }
            expireCalls()
        }
        let dropped = !shared.withLockedValue { $0.stopRequested }
        for (_, call) in pending {
            call.continuation.resume(throwing: DBusError(name: DBusError.disconnectedName, message: "bus connection closed during \(call.what)"))
        }
        pending.removeAll()
        finish(connection: connection)
        if dropped { shared.withLockedValue { $0.onDisconnect }?() }
    }

    /// Marks the connection closed, fails the jobs nobody will run, releases libdbus and the pipe.
    private func finish(connection: OpaquePointer?) {
        let orphans = shared.withLockedValue { state in
            state.closed = true
            defer { state.jobs.removeAll() }
            return state.jobs
        }
        for job in orphans { job(nil) }
        if let connection {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
        }
        Glibc.close(wakeFD)
        Glibc.close(wakeWriteFD)
        let waiter = finished.withLockedValue { slot in
            ended.withLockedValue { $0 = true }
            defer { slot = nil }
            return slot
        }
        waiter?.resume()
    }

    private func pollTimeoutMilliseconds() -> Int32 {
        guard let next = pending.values.map(\.deadline).min() else { return 1000 }
        let remaining = next - .now
        let ms = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(0, min(1000, ms + 1)))
    }

    private func expireCalls() {
        let now = ContinuousClock.now
        for (serial, call) in pending where call.deadline <= now {
            pending[serial] = nil
            call.continuation.resume(throwing: DBusError(name: DBusError.timeoutName, message: "no reply to \(call.what)"))
        }
    }

    private func filter(_ raw: OpaquePointer, on connection: OpaquePointer) -> DBusHandlerResult {
        guard let message = Self.decode(raw) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        switch message.kind {
        case .methodReturn, .error:
            guard let call = pending.removeValue(forKey: message.replySerial) else { return DBUS_HANDLER_RESULT_HANDLED }
            if message.kind == .error {
                call.continuation.resume(throwing: DBusError(name: message.errorName ?? "", message: message.body.first?.stringValue ?? ""))
            } else {
                call.continuation.resume(returning: message.body)
            }
            return DBUS_HANDLER_RESULT_HANDLED
        case .signal:
            shared.withLockedValue { $0.signalHandler }?(message)
            // The local Disconnected signal must reach libdbus's own handling too.
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case .methodCall:
            guard let handler = shared.withLockedValue({ $0.methodHandler }), let reply = handler(message) else {
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }
            if !message.noReplyExpected { send(reply, to: raw, on: connection) }
            return DBUS_HANDLER_RESULT_HANDLED
        }
    }

    private func send(_ reply: DBusReply, to call: OpaquePointer, on connection: OpaquePointer) {
        let message: OpaquePointer?
        switch reply {
        case .values(let values):
            message = dbus_message_new_method_return(call)
            if let message, (try? DBusMarshal.append(values, to: message)) == nil {
                dbus_message_unref(message)
                return send(.error(DBusError(name: "org.freedesktop.DBus.Error.Failed", message: "cannot encode reply")), to: call, on: connection)
            }
        case .error(let error):
            message = dbus_message_new_error(call, error.name, error.message)
        }
        guard let message else { return }
        dbus_connection_send(connection, message, nil)
        dbus_message_unref(message)
    }

    private static func decode(_ raw: OpaquePointer) -> DBusMessage? {
        let kind: DBusMessage.Kind
        switch dbus_message_get_type(raw) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: kind = .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: kind = .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: kind = .error
        case DBUS_MESSAGE_TYPE_SIGNAL: kind = .signal
        default: return nil
        }
        let text = { (p: UnsafePointer<CChar>?) in p.map { String(cString: $0) } }
        // An undecodable body (unix fds) still completes a pending call, with no values.
        let body = (try? DBusMarshal.read(raw)) ?? []
        return DBusMessage(kind: kind, path: text(dbus_message_get_path(raw)), interface: text(dbus_message_get_interface(raw)),
                           member: text(dbus_message_get_member(raw)), errorName: text(dbus_message_get_error_name(raw)),
                           sender: text(dbus_message_get_sender(raw)), serial: dbus_message_get_serial(raw),
                           replySerial: dbus_message_get_reply_serial(raw), noReplyExpected: dbus_message_get_no_reply(raw) != 0,
                           body: body)
    }
}
