import BeaconCore
import Foundation

/// One recording: one phone's view of its counterpart, cut into static positions.
struct Recording {
    var name: String
    /// Test id and side ("test07", "A"): the two sides of one test recorded the same moves.
    var test: String
    var side: String
    /// Unordered phone pair ("N8+P2"), the unit left out.
    var pair: String
    /// Positions in recorded order, each at one true distance (ranging-eval's `segments`,
    /// keeping those of ≥ 30 samples).
    var positions: [Position]
    /// The pair's own line, fitted the way ranging-eval fits it (every other position ≥ 0.2 m),
    /// so `range --calibration` in the judge and this evaluator see the same A and n.
    var line: PathLossModel?
}

struct Position {
    var distance: Double
    var rssi: [Double]
}

enum RecordingsError: Error, CustomStringConvertible {
    case unreadable(String, String)
    var description: String {
        switch self { case .unreadable(let p, let why): "\(p): \(why)" }
    }
}

enum Recordings {
    /// Reads every `testNN-…-A|B.csv[.gz]` of a herald-style folder; phone names come from its
    /// metadata.csv (phoneaname, phonebname). Files without true distances are skipped.
    static func load(folder: String) throws -> [Recording] {
        let phones = try pairNames(metadata: folder + "/metadata.csv")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        var out: [Recording] = []
        for name in names where name.hasPrefix("test") && (name.hasSuffix(".csv") || name.hasSuffix(".csv.gz")) {
            let text = try read(folder + "/" + name)
            let trace: Trace
            do { trace = try TraceParser.parse(text) } catch { throw RecordingsError.unreadable(name, "\(error)") }
            guard trace.hasTrueDistance else { continue }
            let stem = name.split(separator: ".")[0]
            let parts = stem.split(separator: "-")
            let test = String(parts[0])
            let id = Int(test.dropFirst(4)) ?? -1
            let positions = segments(trace.samples)
            out.append(Recording(name: String(stem), test: test, side: String(parts.last ?? ""),
                                 pair: phones[id] ?? test, positions: positions, line: judgeLine(positions)))
        }
        return out
    }

    static func segments(_ samples: [TraceSample]) -> [Position] {
        var out: [Position] = []
        var current = Position(distance: .nan, rssi: [])
        for s in samples where s.rssi < 0 {
            let d = s.trueDistance ?? .nan
            if !current.rssi.isEmpty && abs(current.distance - d) > 1e-6 {
                out.append(current)
                current = Position(distance: d, rssi: [])
            }
            current.distance = d
            current.rssi.append(s.rssi)
        }
        if !current.rssi.isEmpty { out.append(current) }
        return out.filter { $0.rssi.count >= 30 }
    }

    /// ranging-eval's `fit`: least squares over every sample of every other position ≥ 0.2 m
    /// (sorted by distance), n clamped to 1…6, rounded as it writes the calibration file.
    static func judgeLine(_ positions: [Position]) -> PathLossModel? {
        let far = positions.enumerated().sorted { ($0.element.distance, $0.offset) < ($1.element.distance, $1.offset) }
            .map(\.element).filter { $0.distance >= 0.2 }
        guard far.count >= 4 else { return nil }
        var xs: [Double] = [], ys: [Double] = []
        for (i, p) in far.enumerated() where i % 2 == 0 {
            for r in p.rssi { xs.append(-10 * log10(max(p.distance, 0.01))); ys.append(r) }
        }
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        var sxx = 0.0, sxy = 0.0
        for (x, y) in zip(xs, ys) { sxx += (x - mx) * (x - mx); sxy += (x - mx) * (y - my) }
        let n = min(6, max(1, sxx > 0 ? sxy / sxx : 2))
        let a = my - n * mx
        return PathLossModel(txPower: (a * 1000).rounded() / 1000, exponent: (n * 10000).rounded() / 10000)
    }

    /// ranging-eval's walk calibration: least squares over every sample of every position.
    static func fitAll(_ positions: [Position]) -> PathLossModel? {
        var xs: [Double] = [], ys: [Double] = []
        for p in positions { for r in p.rssi { xs.append(-10 * log10(max(p.distance, 0.01))); ys.append(r) } }
        guard xs.count > 1 else { return nil }
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        var sxx = 0.0, sxy = 0.0
        for (x, y) in zip(xs, ys) { sxx += (x - mx) * (x - mx); sxy += (x - mx) * (y - my) }
        let n = min(6, max(1, sxx > 0 ? sxy / sxx : 2))
        return PathLossModel(txPower: my - n * mx, exponent: n)
    }

    /// testid → "phoneA+phoneB" with the names sorted, so both orders are one pair.
    static func pairNames(metadata path: String) throws -> [Int: String] {
        var out: [Int: String] = [:]
        for line in try read(path).split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard f.count > 3, let id = Int(f[0]) else { continue }
            out[id] = [f[2], f[3]].sorted().joined(separator: "+")
        }
        return out
    }

    /// Text of a file, gunzipped by `gzip -dc` when it ends in .gz (Foundation on Linux has no
    /// zlib API, and this is a benchmark, not the product).
    static func read(_ path: String) throws -> String {
        guard path.hasSuffix(".gz") else { return try String(contentsOfFile: path, encoding: .utf8) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["gzip", "-dc", path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw RecordingsError.unreadable(path, "gzip -dc failed") }
        return String(decoding: data, as: UTF8.self)
    }
}
