import Foundation

/// One row of a shared trace file (`t_s,rssi_dbm,true_distance_m`).
public struct Sample: Sendable {
    public var time: Double
    public var rssi: Double
    public var distance: Double

    public init(time: Double, rssi: Double, distance: Double) {
        self.time = time
        self.rssi = rssi
        self.distance = distance
    }
}

/// The rows of a gzipped trace CSV (`../shared/data/philotuxo/*.csv.gz`), read through the
/// system's gzip; the benchmarks that replay the real walks share it. Exits with a line on
/// stderr when gzip cannot run.
public func gzippedTrace(_ path: String, tool: String) -> [Sample] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["gzip", "-dc", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch {
        FileHandle.standardError.write(Data("\(tool): cannot run gzip for \(path): \(error)\n".utf8))
        exit(1)
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    // The CSVs end their lines with CRLF, one Character in Swift: split on any newline.
    return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
        let f = line.split(separator: ",").compactMap { Double($0) }
        return f.count >= 3 && f[1] < 0 ? Sample(time: f[0], rssi: f[1], distance: f[2]) : nil
    }
}
