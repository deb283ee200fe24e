import NIOCore
import NIOPosix
import Synchronization

/// Where the server's Swift tasks run. A request's task, its socket and its PostgreSQL
/// connection each belong to a thread; on Swift's own cooperative pool every step from one to
/// the next is a hop to another thread and a wake-up (issue 39's profile: kernel and futex were
/// half the server's samples). On NIO's event loops a task continues on the loop it is already on
/// when it can, so most of those hops are not taken.
public enum ServerThreads: String, CaseIterable, Sendable {
    /// Swift concurrency's global executor is NIO's event-loop group (the default for `serve`).
    case eventLoops = "event-loops"
    /// Swift's cooperative pool beside NIO's threads (what the server ran on before issue 39).
    case swiftPool = "swift-pool"

    public static let optionName = "--threads"

    /// The choice in `serve`'s arguments (`--threads VALUE` or `--threads=VALUE`), the default
    /// when absent; nil when the value is not one of the cases (ArgumentParser then says so).
    public static func chosen(in serveArguments: some Sequence<String>) -> ServerThreads? {
        var arguments = serveArguments.makeIterator()
        var choice = ServerThreads.eventLoops
        while let argument = arguments.next() {
            if argument == optionName {
                guard let value = arguments.next(), let named = ServerThreads(rawValue: value) else { return nil }
                choice = named
            } else if argument.hasPrefix(optionName + "=") {
                guard let named = ServerThreads(rawValue: String(argument.dropFirst(optionName.count + 1))) else { return nil }
                choice = named
            }
        }
        return choice
    }

    /// Where a new task actually runs now: true on one of NIO's event loops (the install took).
    public static func tasksRunOnEventLoops() async -> Bool {
        await Task.detached { MultiThreadedEventLoopGroup.currentEventLoop != nil }.value
    }

    /// Makes NIO's event loops Swift's global executor. From the main thread before the process
    /// starts any task (tasks enqueued before stay where they are); a no-op for `.swiftPool`
    /// and after the first call (NIO traps on a second). False when not installed now.
    @discardableResult
    public func install() -> Bool {
        guard self == .eventLoops, Self.installed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return false }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    private static let installed = Atomic(false)
}
