// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "RideBeacon",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "ridebeacon", targets: ["ridebeacon"]),
        .library(name: "BeaconCore", targets: ["BeaconCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // Pure Swift, no I/O: frames, HCI codec, btsnoop, ranging.
        .target(name: "BeaconCore"),
        // Rides, accounts and their history; SQLite (GRDB) and PostgreSQL behind one protocol.
        .target(
            name: "RideStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .executableTarget(
            name: "ridebeacon",
            dependencies: [
                "BeaconCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libFuzzer entry point; built only by `make fuzz` with -sanitize=fuzzer.
        .executableTarget(name: "FuzzDecoders", dependencies: ["BeaconCore"]),
        .executableTarget(
            name: "PerAdvertisementBenchmark",
            dependencies: ["BeaconCore"],
            path: "Benchmarks/PerAdvertisement"
        ),
        .testTarget(
            name: "BeaconCoreTests",
            dependencies: [
                "BeaconCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RideStoreTests",
            dependencies: ["RideStore", .product(name: "PostgresNIO", package: "postgres-nio")]
        ),
        .testTarget(
            name: "RideBeaconCLITests",
            dependencies: ["ridebeacon"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
