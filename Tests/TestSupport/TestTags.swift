import Foundation
import Testing

/// What a suite needs beyond the toolchain. `make check` (the fast lane) skips every suite that
/// carries one of these tags; `make test` runs them all.
///
/// Swift 6.3.1's `swift test` cannot filter by tag yet (`--filter tag:x` arrives with
/// swift-testing's ST-0025), so `scripts/fast-lane-skips.sh` reads the tags off the `@Suite`
/// declarations and passes their suites to `swift test --skip`. Put tags on `@Suite`, not on a
/// single `@Test`, so the script sees them:
///
/// ```swift
/// @Suite("h4 radio against Bumble virtual controllers", .tags(.bumble, .process))
/// struct BumbleRadioTests { … }
/// ```
extension Tag {
    /// Needs the private PostgreSQL server alone (suites over `StoreKind.available` do not: they
    /// run their SQLite half without it).
    @Tag public static var postgres: Self
    /// Drives headless Chromium.
    @Tag public static var chromium: Self
    /// Needs Bumble virtual controllers (the `.venv` Python).
    @Tag public static var bumble: Self
    /// Starts a process: the built `ridebeacon`, a dbus-daemon with python3-dbusmock, python3.
    @Tag public static var process: Self
    /// Reaches beyond this machine's loopback.
    @Tag public static var network: Self
    /// Takes tens of seconds of CPU on its own.
    @Tag public static var slow: Self
}

/// The fast lane's guard: `make check` sets `RIDEBEACON_FAST_LANE=1`, and every fixture that
/// starts a process, a Bumble controller or a PostgreSQL connection calls `refuse(_:)` first, so
/// a suite that needs one and lacks its tag fails in `make check` with the tag to add instead of
/// quietly needing more than the toolchain.
public enum FastLane {
    /// Whether this run is `make check`.
    public static let isOn = ProcessInfo.processInfo.environment["RIDEBEACON_FAST_LANE"] == "1"

    /// Throws when the fast lane is on: `what` needs `tag`, which the running suite should carry.
    public static func refuse(_ what: String, tag: String) throws {
        guard isOn else { return }
        throw FixtureError("\(what) in the fast lane (make check): tag the suite `.tags(.\(tag))` (Tests/TestSupport/TestTags.swift)")
    }
}
