import Foundation

/// The repository checkout the tests run in, and the binaries and files in it.
public enum Repository {
    /// The checkout's root (this file is Tests/TestSupport/Repository.swift).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `ridebeacon` executable: next to the test bundle, else the usual debug build location.
    public static let ridebeaconBinary: URL? = {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
            here, here.deletingLastPathComponent(), root.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("ridebeacon") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The `.venv` Python with Bumble (`make test` creates it); nil when missing.
    public static let venvPython: URL? = {
        let url = root.appendingPathComponent(".venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }()

    /// A new empty scratch directory under the system's temporary directory.
    public static func temporaryDirectory(_ prefix: String = "ridebeacon-tests") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A test fixture that could not be set up (a missing peer, a server that did not start).
public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
