#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser

/// Buffered standard output: CSV rows can number in the millions.
struct StandardOutput {
    private var buffer: [UInt8] = []

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        FileDescriptorWriter.writeAll(STDOUT_FILENO, buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

enum StandardError {
    static func writeLine(_ line: String) {
        FileDescriptorWriter.writeAll(STDERR_FILENO, Array((line + "\n").utf8))
    }
}

enum FileDescriptorWriter {
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return // a closed pipe (`| head`) is the reader's choice, not our error
            }
            offset += written
        }
    }
}

/// Reports a failure about `path` as one line, `ridebeacon: FILE: message`, and returns the
/// exit code ArgumentParser exits with silently: no "Error:" prefix and no usage text,
/// because the command line itself was fine.
func failure(path: String, _ error: any Error) -> ExitCode {
    StandardError.writeLine("ridebeacon: \(path): \(error)")
    return .failure
}

/// Reads whole files with POSIX calls, so failures carry the system's own short reason.
enum FileBytes {
    struct ReadError: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "cannot read: \(String(cString: strerror(code)))" }
    }

    static func contents(of path: String) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ReadError(code: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(code: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
