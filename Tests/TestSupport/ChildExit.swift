import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended, read from the kernel rather than from Foundation's `Process`.
///
/// On Linux, `Process.waitUntilExit()` and `isRunning` learn of the exit only when Foundation's
/// own monitor notices it, and in a parallel test run it sometimes never does: a clean clone's
/// `make test` once sat for good in `waitUntilExit()` for an `admin list-accounts` that had long
/// exited, holding one of the two threads of the test pool, and the suites behind it ran out of
/// time. `waitid(…, WNOWAIT)` reads a finished child's status without reaping it, so Foundation
/// can still reap it whenever it notices.
public struct ChildExit: Sendable, Equatable, CustomStringConvertible {
    /// The exit status, or the signal number when `signalled`.
    public var status: Int32
    /// Killed by a signal rather than exited.
    public var signalled: Bool

    public var description: String { signalled ? "killed by signal \(status)" : "exited with status \(status)" }

    /// How `process` ended, or nil while it runs (or was never started).
    public static func peek(_ process: Process) -> ChildExit? {
        let pid = process.processIdentifier
        guard pid > 0 else { return nil }
        var info = siginfo_t()
        while true {
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 {
                let child = info._sifields._sigchld
                guard child.si_pid == pid else { return nil }
                return ChildExit(status: child.si_status, signalled: info.si_code != Int32(CLD_EXITED))
            }
            if errno == EINTR { continue }
            // ECHILD: Foundation has reaped it, so Foundation knows how it ended.
            guard !process.isRunning else { return nil }
            return ChildExit(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal)
        }
    }

    /// Waits for `process` to end, suspending (never blocking a thread of the pool). After
    /// `limit` the child is killed and this throws, so a hung child fails its test instead of
    /// the whole run; a cancelled wait kills the child too.
    public static func wait(for process: Process, limit: Duration = .seconds(300)) async throws -> ChildExit {
        let deadline = ContinuousClock.now + limit
        while true {
            if let exit = peek(process) { return exit }
            if Task.isCancelled || ContinuousClock.now >= deadline {
                kill(process.processIdentifier, SIGKILL)
                _ = waitBlocking(for: process, seconds: 10)
                throw FixtureError("\(process.executableURL?.lastPathComponent ?? "child") \((process.arguments ?? []).prefix(3).joined(separator: " ")) "
                    + (Task.isCancelled ? "was stopped: its test was cancelled" : "did not exit within \(limit); killed"))
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits up to `seconds` on this thread, for the synchronous places (a fixture's `stop()`
    /// or `deinit` after it sent SIGKILL). nil if the child still runs.
    @discardableResult
    public static func waitBlocking(for process: Process, seconds: Double) -> ChildExit? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let exit = peek(process) { return exit }
            usleep(10_000)
        }
        return peek(process)
    }
}
