import BlueZ
import HCITransports
import RadioCore
import Foundation
import NIOConcurrencyHelpers

/// A controller that answers from a recorded script: each packet the host sends must equal the
/// script's next `H>C` line; the `C>H` lines after it are then sent back, one read each.
final class ScriptedTransport: HCITransport, Sendable {
    enum Line: Equatable { case host([UInt8]), controller([UInt8]) }
    private struct State {
        var remaining: [Line]
        var mismatches: [String] = []
        var continuation: AsyncThrowingStream<HCIChunk, any Error>.Continuation?
    }
    private let state: NIOLockedValueBox<State>
    var description: String { "scripted" }

    init(script: String) {
        let lines: [Line] = script.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard let tag = fields.first, tag == "H>C" || tag == "C>H" else { return nil }
            let bytes = fields.dropFirst().map { UInt8($0, radix: 16)! }
            return tag == "H>C" ? .host(bytes) : .controller(bytes)
        }
        state = NIOLockedValueBox(State(remaining: lines))
    }

    convenience init(fixture name: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/hci/\(name)")
        self.init(script: try String(contentsOf: url, encoding: .utf8))
    }

    /// Script lines not yet reached, and every packet that did not match.
    var remaining: [Line] { state.withLockedValue { $0.remaining } }
    var mismatches: [String] { state.withLockedValue { $0.mismatches } }

    func open() async throws -> HCILink {
        let (inbound, continuation) = AsyncThrowingStream<HCIChunk, any Error>.makeStream()
        state.withLockedValue { $0.continuation = continuation }
        return HCILink(inbound: inbound, send: { [self] bytes in receive(bytes) }, close: { continuation.finish() })
    }

    private func receive(_ bytes: [UInt8]) {
        state.withLockedValue { state in
            guard case .host(let expected)? = state.remaining.first else {
                state.mismatches.append("unexpected \(hex(bytes))")
                return
            }
            guard expected == bytes else {
                state.mismatches.append("expected \(hex(expected)), got \(hex(bytes))")
                return
            }
            state.remaining.removeFirst()
            while case .controller(let reply)? = state.remaining.first {
                state.remaining.removeFirst()
                state.continuation?.yield(HCIChunk(reply))
            }
        }
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined(separator: " ") }
}
