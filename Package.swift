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
    ],
    targets: [
        // Pure Swift, no I/O: frames, HCI codec, btsnoop, ranging.
        .target(name: "BeaconCore"),
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
        .executableTarget(
            name: "RangingBenchmark",
            dependencies: ["BeaconCore"],
            path: "Benchmarks/Ranging",
            exclude: ["synth_walks.py", "rest_issuance.py"]
        ),
        .testTarget(
            name: "BeaconCoreTests",
            dependencies: [
                "BeaconCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RideBeaconCLITests",
            dependencies: ["ridebeacon"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
