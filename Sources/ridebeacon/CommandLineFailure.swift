import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A user-facing failure: printed as one line `ridebeacon: <message>` on stderr, exit status 1.
/// Messages name the file and, where there is one, the line and field.
struct CommandLineFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Runs a command body so that every failure becomes one stderr line and a non-zero exit
/// (no stack traces, no usage dump for bad data).
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as CommandLineFailure {
        writeStandardError("ridebeacon: \(failure.message)\n")
        throw ExitCode(1)
    }
}

func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    writeAll(&bytes, to: 2)
}

/// Writes bytes to a file descriptor, retrying short writes.
func writeAll(_ bytes: inout [UInt8], to descriptor: Int32) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written <= 0 {
            if written < 0 && errno == EINTR { continue }
            return
        }
        offset += written
    }
}

/// Reads a whole file; failures name the file and the system's reason.
func readFile(_ path: String) throws(CommandLineFailure) -> [UInt8] {
    guard let file = fopen(path, "rb") else {
        throw CommandLineFailure("\(path): cannot read: \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
        if n < chunk.count {
            if ferror(file) != 0 {
                throw CommandLineFailure("\(path): cannot read: \(String(cString: strerror(errno)))")
            }
            return bytes
        }
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
