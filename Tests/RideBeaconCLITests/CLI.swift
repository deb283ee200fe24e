import Foundation
import RideBeaconTesting

/// Runs the built `ridebeacon` binary and captures its output (RideBeaconTesting's runner),
/// with this suite's fixture files.
enum CLI {
    typealias Result = ProcessResult
    static let repository = Repository.root
    static let fixtures = repository.appendingPathComponent("fixtures/traces")
    static let binary = Repository.ridebeaconBinary

    /// `environment` replaces the child's environment when given (role commands read RIDEBEACON_* and XDG_CONFIG_HOME).
    static func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        try await ProcessRunner.ridebeacon(arguments, environment: environment)
    }

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    static func hciFixtureText(_ name: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent("fixtures/hci/\(name)"), encoding: .utf8)
    }

    /// A scratch directory for files a test writes.
    static func temporaryDirectory() throws -> URL { try Repository.temporaryDirectory() }
}
