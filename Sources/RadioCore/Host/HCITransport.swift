/// Bytes as read from a controller, stamped when the read returned (the start of the
/// per-advertisement latency the benchmarks measure).
public struct HCIChunk: Sendable {
    public var bytes: [UInt8]
    public var receivedAt: ContinuousClock.Instant

    public init(_ bytes: [UInt8], receivedAt: ContinuousClock.Instant = .now) {
        self.bytes = bytes
        self.receivedAt = receivedAt
    }
}

/// One open H4 byte stream to a controller: packets as indicator + header + payload.
///
/// `inbound` yields bytes in whatever pieces they arrive and finishes (or throws) when the
/// controller goes away; `send` writes whole packets; `close` is idempotent.
public struct HCILink: Sendable {
    public let inbound: AsyncThrowingStream<HCIChunk, any Error>
    public let send: @Sendable ([UInt8]) async throws -> Void
    public let close: @Sendable () async -> Void

    public init(inbound: AsyncThrowingStream<HCIChunk, any Error>, send: @escaping @Sendable ([UInt8]) async throws -> Void,
                close: @escaping @Sendable () async -> Void) {
        self.inbound = inbound
        self.send = send
        self.close = close
    }
}

/// Opens links to one controller: the seam between the byte transports (TCP, unix socket,
/// tty, HCI user channel, the in-process simulator) and the HCI host that drives them.
public protocol HCITransport: Sendable, CustomStringConvertible {
    func open() async throws -> HCILink
}
