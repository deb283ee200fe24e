import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// Limits on the server's TCP connections, for when clients reach it without a proxy in front
/// (the multi-box layout): issue 36's review held 1 074 half-sent requests open from one
/// address until `/health` timed out, one of them still open after 150 s.
public struct ConnectionLimits: Sendable {
    /// A connection's first request head (request line and headers) must arrive complete this
    /// long after the connection opened, or the connection is closed (a slow-headers attack
    /// holds a connection with a few bytes now and then).
    public var requestHeadTimeout: Duration? = .seconds(10)
    /// A connection that reads nothing for this long while it waits for or reads a request is
    /// closed (Hummingbird's idle timeout; a response being written, such as an event stream,
    /// does not count as idle).
    public var idleTimeout: Duration? = .seconds(60)
    /// Open connections per client address (IPv6 by /64, `AddressKey`): the next is closed at
    /// once. Not applied behind a proxy (`RateLimitConfiguration.clientAddressHeader` set), where
    /// every connection comes from the proxy; the proxy limits clients there.
    public var maxPerAddress: Int? = 64
    /// Whether loopback clients are capped too. Off: a client on this machine is a proxy, a
    /// load generator or an operator, not a remote attacker (the load runs hold 500 streams
    /// from 127.0.0.1). Tests turn it on to use 127.x addresses as clients.
    public var capsLoopback = false

    public init() {}

    var idleTimeAmount: TimeAmount? { idleTimeout.map(TimeAmount.init) }
    var headTimeAmount: TimeAmount? { requestHeadTimeout.map(TimeAmount.init) }
}

/// Open connections per address, shared by every connection's `ConnectionGuardHandler`.
final class ConnectionCounter: Sendable {
    private let limit: Int
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection from `key`; false (nothing counted) when the address is at the limit.
    func admit(_ key: String) -> Bool {
        open.withLock { open in
            let count = open[key, default: 0]
            guard count < limit else { return false }
            open[key] = count + 1
            return true
        }
    }

    func release(_ key: String) {
        open.withLock { open in
            let count = open[key, default: 1] - 1
            open[key] = count > 0 ? count : nil
        }
    }

    /// Open connections from `key` (tests).
    func count(_ key: String) -> Int { open.withLock { $0[key, default: 0] } }
}

/// First in each connection's pipeline, on the raw bytes: counts the connection against its
/// address's limit and closes it if the first request head (up to its blank line) has not
/// arrived by the deadline. After the head it only passes bytes on; later requests on the
/// connection are bounded by the idle timeout.
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let counter: ConnectionCounter?
    private let headTimeout: TimeAmount?
    private var counted: String?
    private var started = false
    private var headSeen = false
    /// The last bytes of the previous read, so a blank line split across reads is found.
    private var tail: [UInt8] = []
    private var deadline: Scheduled<Void>?

    private let capsLoopback: Bool

    init(counter: ConnectionCounter?, headTimeout: TimeAmount?, capsLoopback: Bool) {
        self.counter = counter
        self.headTimeout = headTimeout
        self.capsLoopback = capsLoopback
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        if let counter, let peer = context.channel.remoteAddress?.ipAddress, capsLoopback || !Self.isLoopback(peer) {
            let key = AddressKey.of(peer)
            guard counter.admit(key) else {
                context.close(promise: nil)
                return
            }
            counted = key
        }
        if let headTimeout {
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: headTimeout) {
                context.close(promise: nil)
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !headSeen {
            let buffer = unwrapInboundIn(data)
            let bytes = tail + buffer.readableBytesView
            if Self.containsBlankLine(bytes) {
                headSeen = true
                deadline?.cancel()
                deadline = nil
                tail = []
            } else {
                tail = Array(bytes.suffix(3))
            }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    private func finish() {
        deadline?.cancel()
        deadline = nil
        if let counted { counter?.release(counted) }
        counted = nil
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    /// Whether `bytes` hold CRLF CRLF (a request head's end; a bare LF LF is accepted too).
    static func containsBlankLine(_ bytes: [UInt8]) -> Bool {
        var i = 0
        while i + 1 < bytes.count {
            if bytes[i] == 0x0A {
                if bytes[i + 1] == 0x0A { return true }
                if bytes[i + 1] == 0x0D, i + 2 < bytes.count, bytes[i + 2] == 0x0A { return true }
            }
            i += 1
        }
        return false
    }
}

/// Hummingbird's HTTP/1 channel with `ConnectionGuardHandler` in front of its HTTP decoder.
struct GuardedHTTP1Channel: ServerChildChannel {
    let http1: HTTP1Channel
    let makeGuard: @Sendable () -> ConnectionGuardHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(makeGuard(), position: .first)
        }.flatMap {
            http1.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with `limits`: the idle timeout, the first request head's deadline and the cap per
    /// address (`counter`, nil for none).
    static func guardedHTTP1(_ limits: ConnectionLimits, counter: ConnectionCounter?) -> HTTPServerBuilder {
        let headTimeout = limits.headTimeAmount
        return HTTPServerBuilder { responder in
            GuardedHTTP1Channel(http1: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: limits.idleTimeAmount)),
                                makeGuard: { ConnectionGuardHandler(counter: counter, headTimeout: headTimeout, capsLoopback: limits.capsLoopback) })
        }
    }
}
