#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser

/// A user-facing failure: printed as one line `ridebeacon: <message>` on stderr, exit status 1.
/// Messages name the file and, where there is one, the line, record and field. Usage text is
/// left out: the command line was fine, the data was not.
struct CommandLineFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Runs a command body so that every failure becomes one stderr line and a non-zero exit.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as CommandLineFailure {
        StandardError.writeLine("ridebeacon: \(failure.message)")
        throw ExitCode(1)
    }
}

/// Buffered standard output: CSV rows can number in the millions.
struct StandardOutput {
    private var buffer: [UInt8] = []

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        FileDescriptor.writeAll(STDOUT_FILENO, buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

enum StandardOutputBytes {
    static func write(_ bytes: [UInt8]) { FileDescriptor.writeAll(STDOUT_FILENO, bytes) }
}

/// Where the commands' lines go (`Say` on standard output, `StandardError`): the process's own
/// descriptors, or, for one task and the tasks it starts, whatever a test binds with
/// `ConsoleOutput.$current.withValue(…)`, so flows run in process can be read line by line
/// (and tests running side by side do not mix their lines).
struct ConsoleOutput: Sendable {
    var standardOutput: @Sendable ([UInt8]) -> Void
    var standardError: @Sendable ([UInt8]) -> Void

    static let process = ConsoleOutput(standardOutput: { FileDescriptor.writeAll(STDOUT_FILENO, $0) },
                                       standardError: { FileDescriptor.writeAll(STDERR_FILENO, $0) })
    @TaskLocal static var current = ConsoleOutput.process
}

enum StandardError {
    static func writeLine(_ line: String) {
        // Error messages quote the service's answers: the terminal sink applies.
        ConsoleOutput.current.standardError(Array((SinkText.terminal(line) + "\n").utf8))
    }
}

enum FileDescriptor {
    /// Writes all of `bytes`, retrying short and interrupted writes. A closed pipe
    /// (`| head`) is the reader's choice, not an error.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// Reads a whole file; failures name the file and the system's reason.
func readFile(_ path: String) throws(CommandLineFailure) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw CommandLineFailure("\(path): cannot read: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw CommandLineFailure("\(path): cannot read: \(String(cString: strerror(errno)))")
        }
        if count == 0 { return bytes }
        bytes.append(contentsOf: chunk[0..<count])
    }
}

/// Writes a whole file; failures name the file.
func writeFile(_ path: String, _ text: String) throws(CommandLineFailure) {
    guard let file = fopen(path, "wb") else {
        throw CommandLineFailure("\(path): cannot write: \(String(cString: strerror(errno)))")
    }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    let closed = fclose(file)
    guard written == bytes.count, closed == 0 else {
        throw CommandLineFailure("\(path): cannot write: \(String(cString: strerror(errno)))")
    }
}
