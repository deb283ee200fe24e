/// Bytes as read from a controller, stamped when the read returned (the start of the
/// per-advertisement latency the benchmarks measure).
public struct HCIChunk: Sendable {
    /// The bytes exactly as read (any piece of any packet).
    public var bytes: [UInt8]
    /// When the read returned.
    public var receivedAt: ContinuousClock.Instant

    /// A chunk read now (or at `receivedAt`, for recorded bytes).
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
    /// The controller's bytes, in whatever pieces they arrive; ends when the controller goes away.
    public let inbound: AsyncThrowingStream<HCIChunk, any Error>
    /// Writes one whole packet (indicator, header, payload).
    public let send: @Sendable ([UInt8]) async throws -> Void
    /// Closes the link; calling it again does nothing.
    public let close: @Sendable () async -> Void

    /// A link from its three parts (each transport builds one per `open()`).
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
