import Foundation
import PropertyBased
@testable import BeaconCore

/// Bytes from a hex string; spaces and newlines are ignored so spec layouts can be grouped.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count.isMultiple(of: 2), "odd number of hex digits in test literal")
    var out: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index..<next], radix: 16) else { preconditionFailure("bad hex in test literal") }
        out.append(byte)
        index = next
    }
    return out
}

/// Applies byte-level mutations described by random seeds: flip a bit, insert a byte,
/// delete a byte, or truncate. Each seed picks the kind (low 2 bits), the position and the value.
func mutate(_ bytes: [UInt8], with seeds: [UInt64]) -> [UInt8] {
    var out = bytes
    for seed in seeds {
        let position = Int((seed >> 8) % UInt64(out.count + 1))
        let value = UInt8(truncatingIfNeeded: seed >> 48)
        switch seed & 3 {
        case 0 where position < out.count:
            out[position] ^= 1 << (value & 7)
        case 1:
            out.insert(value, at: position)
        case 2 where position < out.count:
            out.remove(at: position)
        default:
            out.removeLast(out.count - position)
        }
    }
    return out
}

/// Mutation seeds: one to four mutations per case.
let mutationSeeds = Gen.uint64().array(of: 1...4)

/// The iBeacon advertising data the tests use.
let testBeacon = IBeacon(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 2, measuredPower: -59)

/// The package root, for reading fixtures.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func fixture(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: packageRoot.appendingPathComponent("fixtures/hci/\(name)")))
}
