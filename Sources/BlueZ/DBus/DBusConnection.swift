import CDBus
import Synchronization
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
///
/// @unchecked Sendable: what other threads touch is in the two `Mutex`es; `thread` is written
/// before the bus thread starts, and the rest (`Pending`, the connection) is the bus thread's alone.
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
        var pipeClosed = false
        var methodHandler: MethodHandler?
        var signalHandler: SignalHandler?
        var onDisconnect: (@Sendable () -> Void)?
    }
    private let shared = Mutex(Shared())
    /// Read and write ends of the pipe that wakes the bus thread.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private struct Lifecycle {
        var ended = false
        var waiter: CheckedContinuation<Void, Never>?
        var joined = false
    }
    private let lifecycle = Mutex(Lifecycle())
    /// Written before the thread starts; joined by `close()`.
    private var thread = pthread_t()

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

    /// Where the system bus is: `DBUS_SYSTEM_BUS_ADDRESS`, else the well-known socket. Read at each
    /// connect (libdbus's own dbus_bus_get reads it once per process).
    public static var systemBusAddress: String {
        getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/run/dbus/system_bus_socket"
    }

    /// Connects and registers on a bus (default: the system bus) on a new thread; fails with the
    /// bus's own message when it cannot.
    public static func open(address: String = systemBusAddress) async throws -> DBusConnection {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw DBusError(name: "org.freedesktop.DBus.Error.Failed", message: "pipe: \(String(cString: strerror(errno)))")
        }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let connection = DBusConnection(wake: (ends[0], ends[1]))
        do {
            try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
                connection.startThread { connection.threadMain(address: address, opened) }
            }
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }

    private final class ThreadBody {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// A plain pthread rather than Foundation's Thread, so `close()` can join it.
    private func startThread(_ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        pthread_create(&thread, nil, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
    }

    public func setHandlers(method: MethodHandler?, signal: SignalHandler?, disconnect: (@Sendable () -> Void)?) {
        shared.withLock {
            $0.methodHandler = method
            $0.signalHandler = signal
            $0.onDisconnect = disconnect
        }
    }

    /// False once the bus dropped us or `close()` began.
    public var isOpen: Bool { shared.withLock { !$0.closed && !$0.stopRequested } }

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
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let endedAlready = lifecycle.withLock { state -> Bool in
                if !state.ended { state.waiter = done }
                return state.ended
            }
            if endedAlready { return done.resume() }
            shared.withLock { $0.stopRequested = true }
            wake()
        }
        // The thread has nothing left to do but return, so the join waits microseconds; it makes
        // "no thread left behind" exact.
        let join = lifecycle.withLock { state in
            defer { state.joined = true }
            return !state.joined
        }
        if join {
            pthread_join(thread, nil)
            closePipe()
        }
    }

    /// Under the lock `wake()` writes in, so no wake ever writes to a closed (or reused) fd.
    private func closePipe() {
        shared.withLock { state in
            guard !state.pipeClosed else { return }
            state.pipeClosed = true
            Glibc.close(wakeFD)
            Glibc.close(wakeWriteFD)
        }
    }

    deinit {
        // Only reached after the thread ended (it holds the connection); without a close() it was not joined.
        if !lifecycle.withLock({ $0.joined }) {
            pthread_detach(thread)
            closePipe()
        }
    }

    private func post(_ job: @escaping Job) {
        let accepted = shared.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { wake() } else { job(nil) }
    }

    private func wake() {
        shared.withLock { state in
            guard !state.pipeClosed else { return }
            var one: UInt8 = 1
            _ = Glibc.write(wakeWriteFD, &one, 1)   // non-blocking: a full pipe already means "wake up"
        }
    }

    // MARK: bus thread

    /// "rbdbus-" and 8 hex digits of the address's FNV-1a hash: 15 characters, the kernel's limit.
    static func threadName(forAddress address: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in address.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let hex = String(hash, radix: 16)
        return "rbdbus-" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    private func threadMain(address: String, _ opened: CheckedContinuation<Void, any Error>) {
        // Named after its bus so leak checks and `top -H` can tell one bus's thread from another's.
        // (pthread_setname_np is not imported without _GNU_SOURCE; this is what it does on Linux.)
        let comm = Glibc.open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 {
            let name = Array(Self.threadName(forAddress: address).utf8)
            _ = Glibc.write(comm, name, name.count)
            Glibc.close(comm)
        }
        dbus_threads_init_default()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        let failure = { (connection: OpaquePointer?) in
            let failure = DBusError(name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
                                    message: "\(address): " + (error.message.map { String(cString: $0) } ?? "cannot connect"))
            dbus_error_free(&error)
            self.finish(connection: connection)
            opened.resume(throwing: failure)
        }
        guard let connection = dbus_connection_open_private(address, &error) else { return failure(nil) }
        guard dbus_bus_register(connection, &error) != 0 else { return failure(connection) }
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
            let jobs = shared.withLock { state in
                defer { state.jobs.removeAll() }
                return state.jobs
            }
            for job in jobs { job(connection) }
            dbus_connection_flush(connection)
            while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
            if dbus_connection_get_is_connected(connection) == 0 { break }
            if shared.withLock({ $0.stopRequested && $0.jobs.isEmpty }) { break }
            if shared.withLock({ !$0.jobs.isEmpty }) { continue }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, pollTimeoutMilliseconds())
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeFD, &drain, drain.count) > 0 {}
            }
            if fds[0].revents != 0 { _ = dbus_connection_read_write(connection, 0) }
            expireCalls()
        }
        let dropped = !shared.withLock { $0.stopRequested }
        for (_, call) in pending {
            call.continuation.resume(throwing: DBusError(name: DBusError.disconnectedName, message: "bus connection closed during \(call.what)"))
        }
        pending.removeAll()
        finish(connection: connection)
        if dropped { shared.withLock { $0.onDisconnect }?() }
    }

    /// Marks the connection closed, fails the jobs nobody will run, releases libdbus.
    private func finish(connection: OpaquePointer?) {
        let orphans = shared.withLock { state in
            state.closed = true
            defer { state.jobs.removeAll() }
            return state.jobs
        }
        for job in orphans { job(nil) }
        if let connection {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
        }
        let waiter = lifecycle.withLock { state in
            state.ended = true
            defer { state.waiter = nil }
            return state.waiter
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
            shared.withLock { $0.signalHandler }?(message)
            // The local Disconnected signal must reach libdbus's own handling too.
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case .methodCall:
            guard let handler = shared.withLock({ $0.methodHandler }), let reply = handler(message) else {
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
