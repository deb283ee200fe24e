#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Log lines leave the logging task at once; a thread of its own writes them out. Tasks run on
/// the event loops, and a write(2) to a log pipe whose reader is slow (journald under load, a
/// full terminal) would hold a loop with every socket and database connection on it.
///
/// Bounded: while `capacity` bytes wait, further lines are dropped and counted, and the next
/// write says how many ("log lines dropped"), so a stalled log costs lines, never requests;
/// audit records are the exception (never dropped, written before the call returns). Lines
/// handed over before the process exits are written first (`flush`, run at exit); a process
/// that traps loses what was still queued (usually nothing: the writer drains as lines come).
public final class LogLineWriter: @unchecked Sendable {
    public static let standardError: LogLineWriter = {
        let writer = LogLineWriter(fileDescriptor: STDERR_FILENO)
        // Bounded: a reader that never reads again must not keep the process from exiting.
        atexit { LogLineWriter.standardError.flush(waitingAtMost: 5) }
        return writer
    }()

    private let fileDescriptor: Int32
    private let capacity: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var pending = [UInt8]()
    private var dropped = 0
    /// Lines handed over (written or dropped), and how many of them are out (or counted out).
    private var submitted = 0
    private var completed = 0
    private var writerWaits = false
    private var started = false

    /// `capacity` in bytes; the default holds several thousand access-log lines.
    public init(fileDescriptor: Int32, capacity: Int = 1 << 20) {
        self.fileDescriptor = fileDescriptor
        self.capacity = capacity
    }

    /// Queues one line (its own newline included) and returns at once. An `essential` line (an
    /// audit record) is never dropped, and the call returns once it is out (or after 5 s).
    public func write(_ line: [UInt8], essential: Bool = false) {
        condition.lock()
        defer { condition.unlock() }
        submitted += 1
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "log writer"
            thread.start()
        }
        if pending.count + line.count <= capacity || essential {
            pending.append(contentsOf: line)
        } else {
            dropped += 1
        }
        if writerWaits { condition.broadcast() }
        if essential { waitUntilCompleted(submitted, deadline: Date(timeIntervalSinceNow: 5)) }
    }

    /// Returns once every line handed over before the call is out (or counted as dropped), or
    /// after `seconds`; true when it got there.
    @discardableResult
    public func flush(waitingAtMost seconds: Double = .infinity) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return waitUntilCompleted(submitted, deadline: Date(timeIntervalSinceNow: min(seconds, 1e9)))
    }

    /// With the lock held.
    @discardableResult
    private func waitUntilCompleted(_ target: Int, deadline: Date) -> Bool {
        while completed < target {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }

    private func run() {
        var batch = [UInt8]()
        while true {
            condition.lock()
            while pending.isEmpty && dropped == 0 {
                writerWaits = true
                condition.wait()
            }
            writerWaits = false
            swap(&batch, &pending)
            let lost = dropped
            let through = submitted
            dropped = 0
            condition.unlock()
            // The lines were dropped after everything in the batch was accepted: said after it.
            if lost > 0 { batch.append(contentsOf: Self.droppedLine(lost)) }
            writeAll(batch)
            batch.removeAll(keepingCapacity: true)
            condition.lock()
            completed = through
            condition.broadcast()  // flush() and essential writes wait for this
            condition.unlock()
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    static func droppedLine(_ count: Int) -> [UInt8] {
        JSONLogLine.encode([
            "ts": APIJSON.formatTimestamp(Date()), "level": "warning", "label": "ridebeacon.log",
            "msg": "log lines dropped: the log output did not keep up", "dropped": String(count),
        ])
    }
}
