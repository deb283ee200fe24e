// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "RideBeacon",
    // Linux only (README): the radios and speech import Glibc, and Mutex needs macOS 15, so no
    // Apple platform is declared.
    products: [
        .executable(name: "ridebeacon", targets: ["ridebeacon"]),
        .library(name: "BeaconCore", targets: ["BeaconCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", exact: "2.1.1"),
        // The role CLIs' HTTP client (RideClient); already in the graph through HummingbirdTesting.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // Pure Swift, no I/O: frames, HCI codec, btsnoop, ranging, rotating identity (HMAC from swift-crypto).
        .target(name: "BeaconCore", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The /v1 API's JSON models and error codes, once: the server encodes them, the client
        // decodes them, the store maps its records to them. Foundation only.
        .target(name: "RideWire"),
        // Every sentence a person hears or reads about a ride or the guide, keyed by meaning, in
        // en, es and fr, with plural and number rules (issue 26). Foundation only.
        .target(name: "Phrasebook"),
        // The ride's rules, once (issue 38): the state machine, who may do what to a ride, the
        // touch-proof check, mutual pairing and resend rule, the per-ride limits. No I/O: the
        // routes, both pages, the stores' bounds, the in-memory double and the simulator call it.
        .target(name: "RideRules", dependencies: ["BeaconCore", "RideWire"]),
        // Rides, accounts and their history; SQLite (GRDB) and PostgreSQL behind one protocol.
        .target(
            name: "RideStore",
            dependencies: [
                "RideWire",
                "RideRules",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The API's request bodies and their strict JSON decoding; Foundation only, so the
        // fuzzer builds it alone.
        .target(name: "APIBodies"),
        // The HTTP API (Hummingbird 2): auth, rides, live events, health and metrics.
        .target(
            name: "RideServer",
            dependencies: [
                "BeaconCore",
                "RideStore",
                "RideWire",
                "RideRules",
                "APIBodies",
                "Phrasebook",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // C behind system-library targets (pkg-config), each seen by one small Swift module.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CPocketSphinx", pkgConfig: "pocketsphinx", providers: [.apt(["libpocketsphinx-dev"])]),
        // The Radio seam, C-free: the protocol and its values, `--radio` parsing, the HCI host that
        // drives any byte transport, and the in-process simulated controller (`sim`).
        .target(
            name: "RadioCore",
            dependencies: ["BeaconCore"]
        ),
        // HCI byte transports: h4 over TCP/unix/tty (SwiftNIO) and the hci user channel (libbluetooth).
        .target(
            name: "HCITransports",
            dependencies: [
                "RadioCore", "CBluetooth",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The `bluez` radio: bluetoothd's D-Bus API (libdbus).
        .target(
            name: "BlueZ",
            dependencies: ["BeaconCore", "RadioCore", "CDBus"]
        ),
        // Earcons, speech (libespeak-ng), the cue scheduler and audio sinks; knows nothing of rides.
        // BeaconCore for SplitMix64, the package's one seeded generator (the locator tick's noise).
        .target(name: "GuideAudio", dependencies: ["CEspeakNG", "BeaconCore"]),
        // The typed client of the ride service's /v1 API (openapi.yaml), and the HTTP adapter
        // that makes it RideSession's `RideService`.
        .target(
            name: "RideClient",
            dependencies: [
                "BeaconCore",
                "RideSession",
                "RideWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        // Both sides of a ride at the kerb: the driver's pure core and its runtime, the one
        // identity-advertising loop, and the seams both sides are driven through (clock, radio,
        // RideService). No HTTP: RideClient's RideServiceClient implements RideService, so Guide,
        // the simulator and the benchmarks do not link AsyncHTTPClient.
        .target(name: "RideSession", dependencies: ["BeaconCore", "RadioCore", "RideWire", "RideRules", "Phrasebook"]),
        // The passenger's guide: a pure core over sightings, keys and ride events; its live
        // runtime (radio, RideService, AudioSink).
        .target(name: "Guide", dependencies: ["BeaconCore", "RadioCore", "GuideAudio", "RideSession", "Phrasebook"]),
        // The street the guide is judged on (`ridebeacon demo`, GuideBenchmark, SimFidelity):
        // simulated channel, walker, sounds and people, every parameter sourced in docs/SIMULATOR.md.
        // Nothing in the product depends on it.
        .target(name: "GuideSimulation", dependencies: ["Guide", "BeaconCore", "GuideAudio", "RideSession", "RideRules", "Phrasebook"]),
        // The guide's vibrations through feedbackd (BlueZ's D-Bus wrapper, FeedbackClient).
        .target(
            name: "FeedbackHaptics",
            dependencies: ["BlueZ", "Guide"]
        ),
        // Hands-free commands ("where is my car"): PocketSphinx, a command grammar (or keyword
        // spotting) over CPocketSphinx, microphone capture and the small dialogue that never
        // cancels without a spoken yes.
        .target(
            name: "VoiceCommands",
            dependencies: ["CPocketSphinx", "Guide"]
        ),
        // The command line: every command, its flows (follow, arrive …) and its wording, as a
        // library so RideBeaconCLIUnitTests runs them in process; `ridebeacon` is its `main`.
        .target(
            name: "RideBeaconCLI",
            dependencies: [
                "BeaconCore",
                "BlueZ",
                "HCITransports",
                "RadioCore",
                "Guide",
                "GuideSimulation",
                "GuideAudio",
                "Phrasebook",
                "FeedbackHaptics",
                "VoiceCommands",
                "RideClient",
                "RideServer",
                "RideSession",
                "RideStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "ridebeacon", dependencies: ["RideBeaconCLI"]),
        // What both libFuzzer executables share: libFuzzer's driver, the input, the corpus replay.
        .target(name: "FuzzEntry"),
        // libFuzzer entry point; built only by `make fuzz` with -sanitize=fuzzer.
        .executableTarget(name: "FuzzDecoders", dependencies: ["BeaconCore", "FuzzEntry"]),
        // libFuzzer over the API's JSON bodies (`make fuzz`), without the server's dependencies.
        .executableTarget(name: "FuzzAPIBodies", dependencies: ["APIBodies", "FuzzEntry"]),
        .executableTarget(
            name: "PerAdvertisementBenchmark",
            dependencies: ["BeaconCore"],
            path: "Benchmarks/PerAdvertisement"
        ),
        .executableTarget(
            name: "RangingBenchmark",
            dependencies: ["BeaconCore"],
            path: "Benchmarks/Ranging",
            exclude: ["synth_walks.py", "rest_issuance.py"]
        ),
        // Cue latency, espeak-ng synthesis time and virtual-time rendering (BENCHMARKS.md, "Audio cues").
        .executableTarget(name: "AudioCueBenchmark", dependencies: ["GuideAudio"], path: "Benchmarks/AudioCues"),
        // Touch per pair and per event, leave one phone pair out (BENCHMARKS.md, "Touch per pair").
        .executableTarget(name: "TouchEventBenchmark", dependencies: ["BeaconCore"], path: "Benchmarks/TouchEvents"),
        // Guided walks over simulator seeds, RideBeacon's guide beside HandiGo's policy.
        .executableTarget(name: "GuideBenchmark", dependencies: ["Guide", "GuideSimulation", "BeaconCore", "RideSession"], path: "Benchmarks/Guide",
                          exclude: ["street.sh", "street_tables.py"]),
        // Voice commands on espeak-ng speech in street noise (BENCHMARKS.md, "Voice commands").
        .executableTarget(
            name: "VoiceCommandBenchmark",
            dependencies: ["VoiceCommands", "GuideAudio", "GuideSimulation"],
            path: "Benchmarks/VoiceCommands"
        ),
        // The simulated channel against the real walking traces (`make sim-fidelity`, BENCHMARKS.md).
        // The shared data's gzipped traces, for the benchmarks that replay the real walks.
        .target(name: "GzipTraces", path: "Benchmarks/GzipTraces"),
        .executableTarget(name: "SimFidelity", dependencies: ["Guide", "GuideSimulation", "BeaconCore", "GzipTraces"], path: "Benchmarks/SimFidelity"),
        // The trend estimator on the real walks and static traces (BENCHMARKS.md, "Direction from motion").
        .executableTarget(name: "TrendWalks", dependencies: ["BeaconCore", "GzipTraces"], path: "Benchmarks/TrendWalks", exclude: ["cv.py"]),
        // Seeds the ride server benchmark's database (Benchmarks/server/run.sh).
        .executableTarget(
            name: "ServerBenchmarkSetup",
            dependencies: ["RideServer", "RideStore"],
            path: "Benchmarks/server/Setup"
        ),
        // Mixed open-loop load with SSE listeners against a running server (Benchmarks/Load/run.sh).
        .executableTarget(
            name: "ServerLoad",
            dependencies: [
                "BeaconCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/Load",
            exclude: ["run.sh", "last-results.jsonl", "write-ratio.sh", "cpu_seconds.py", "run_figures.py"]
        ),
        // The tests' fixtures, once each, in three parts so a test target links only what it uses.
        // TestSupport needs nothing beyond the toolchain: the fast lane's tags, `eventually`,
        // SteppedClock, the repository's paths, process runners, free ports, Bumble controllers,
        // private D-Bus buses with their dbusmock services.
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport",
            // GeoClue2 for dbusmock, which has no template for it (GeoClueMock).
            exclude: ["geoclue2_mock.py"]
        ),
        // Doubles of RideSession's seams (the in-memory RideService, the scripted radio, the
        // virtual clock) and recorded speech for the microphone; no server, no database.
        .target(
            name: "SessionDoubles",
            dependencies: [
                "BeaconCore", "RadioCore", "RideSession", "RideRules",
                // SpokenFixture: recorded voice commands as WAV files, found in the repository.
                "GuideAudio", "TestSupport",
            ],
            path: "Tests/SessionDoubles"
        ),
        // The server and database part: World (the real server on the test's database, in
        // memory or on a loopback port), LiveServer (`serve` on port 0), the test databases
        // (SQLite and the private PostgreSQL), the TCP relay. Re-exports TestSupport.
        .target(
            name: "RideBeaconTesting",
            dependencies: [
                "TestSupport",
                "RideStore",
                "RideServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/RideBeaconTesting"
        ),
        .testTarget(
            name: "BeaconCoreTests",
            dependencies: [
                "BeaconCore",
                // The fast lane's tags (a suite that starts python3 or runs for long says so).
                "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "GuideAudioTests", dependencies: ["GuideAudio", "BeaconCore"]),
        // The documents checked against the code (ARCHITECTURE.md's graph against this file).
        .testTarget(name: "DocsTests"),
        .testTarget(name: "PhrasebookTests", dependencies: ["Phrasebook"]),
        // The ride's rules alone: no database, no server, no process.
        .testTarget(name: "RideRulesTests", dependencies: ["RideRules", "RideWire", "BeaconCore"]),
        .testTarget(
            name: "RideWireTests",
            dependencies: ["RideWire", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "GuideTests",
            dependencies: ["Guide", "GuideSimulation", "GuideAudio", "BeaconCore", "RadioCore", "RideSession", "SessionDoubles",
                           "TestSupport", "Phrasebook"]
        ),
        // The street simulator itself: channel, walker, satellites, the street's fairness.
        .testTarget(
            name: "GuideSimulationTests",
            dependencies: ["GuideSimulation", "Guide", "GuideAudio", "BeaconCore", "RideSession", "Phrasebook"]
        ),
        // Haptics against the real feedbackd on a private session bus; voice commands on
        // espeak-ng speech through PocketSphinx.
        .testTarget(
            name: "HapticsVoiceTests",
            dependencies: ["FeedbackHaptics", "VoiceCommands", "BlueZ", "Guide", "GuideSimulation", "GuideAudio",
                           "BeaconCore", "RideSession", "SessionDoubles", "TestSupport", "Phrasebook"]
        ),
        .testTarget(name: "RideSessionTests", dependencies: ["RideSession", "BeaconCore", "RadioCore", "SessionDoubles", "TestSupport"]),
        .testTarget(
            name: "RideClientTests",
            dependencies: [
                "RideClient", "RideServer", "RideSession", "RideStore", "BeaconCore",
                // The real server on a loopback port; a TCP relay (RideBeaconTesting) breaks connections.
                "RideBeaconTesting",
                // The RideService contract runs on the in-memory double too.
                "SessionDoubles",
                // Positions end to end: GeoClue (over dbusmock) on the driver's device.
                "BlueZ",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "BlueZTests",
            dependencies: [
                "BlueZ", "HCITransports", "RadioCore", "BeaconCore", "TestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            exclude: ["bluez5_le_mock.py", "bumble_beacon_peer.py"]
        ),
        .testTarget(
            name: "RideStoreTests",
            dependencies: [
                "RideStore",
                "RideBeaconTesting",
                // The stores' touch-proof SQL checked against the rules on random proofs.
                "RideRules",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "RideServerTests",
            dependencies: [
                "BeaconCore",
                "Phrasebook",
                "RideServer",
                "RideStore",
                "RideBeaconTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // Real `ridebeacon serve` + headless Chromium (Debian) driven by a Python DevTools peer.
        // ...and the touch chain: the real server, h4 radios on Bumble controllers, identities.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ridebeacon",
                "BeaconCore",
                "HCITransports",
                "RadioCore",
                "RideBeaconTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["dispatch_page.py", "cdp.py", "pages_check.py"]
        ),
        // The CLI's flows (`passenger follow`, `driver arrive`) and wording in process: a
        // scripted ride service, InMemoryRideService and the scripted radio; no process, no server.
        .testTarget(
            name: "RideBeaconCLIUnitTests",
            dependencies: ["RideBeaconCLI", "BeaconCore", "Guide", "GuideAudio", "Phrasebook", "RadioCore", "RideClient", "RideSession",
                           "SessionDoubles", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "RideBeaconCLITests",
            dependencies: [
                "ridebeacon",
                // The driver-arrive test scans for the ride's identities over a Bumble controller.
                "BeaconCore",
                "HCITransports",
                "RadioCore",
                "RideServer",
                "RideStore",
                "RideBeaconTesting",
                // SpokenFixture: the hands-free commands' recorded speech.
                "SessionDoubles",
                // The driver's locator sound is measured in the WAV `driver arrive` writes.
                "GuideAudio",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `make check FOR=…` builds only the test targets a change reaches (scripts/fast-lane-targets.sh):
// SwiftPM links every test target into one test product, so with RIDEBEACON_TEST_TARGETS set to
// their names the others leave the package (in the fast lane's own .build-check, never .build).
if let kept = Context.environment["RIDEBEACON_TEST_TARGETS"] {
    let names = Set(kept.split(separator: " ").map(String.init))
    package.targets.removeAll { $0.type == .test && !names.contains($0.name) }
}
