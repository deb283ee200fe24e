import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP relay the tests switch on and off to make a database appear and vanish under a
/// running server, without touching the shared test PostgreSQL.
final class TCPForwarder: Sendable {
    let port: Int
    private let targetHost: String
    private let targetPort: Int
    private let channels = NIOLockedValueBox<(server: (any Channel)?, relays: [any Channel])>((nil, []))
    /// While set, bytes are swallowed and connections stay open: a network partition, where
    /// queries neither answer nor fail.
    private let frozen = NIOLockedValueBox(false)

    /// Reserves a free port (briefly binding it) without listening yet.
    init(to targetHost: String, port targetPort: Int) async throws {
        let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        port = probe.localAddress?.port ?? 0
        try await probe.close()
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    func start() async throws {
        let host = targetHost, target = targetPort, channels = self.channels, frozen = self.frozen
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture { try outbound.pipeline.syncOperations.addHandler(Relay(to: inbound, frozen: frozen)) }
                    }
                    .connect(host: host, port: target)
                    .flatMap { outbound in
                        channels.withLockedValue { $0.relays += [inbound, outbound] }
                        return inbound.eventLoop.makeCompletedFuture {
                            try inbound.pipeline.syncOperations.addHandler(Relay(to: outbound, frozen: frozen))
                        }.flatMap { inbound.setOption(.autoRead, value: true) }
                    }
            }
            .bind(host: "127.0.0.1", port: port).get()
        channels.withLockedValue { $0.server = server }
    }

    func freeze(_ on: Bool) {
        frozen.withLockedValue { $0 = on }
    }

    /// Stops listening and cuts every relayed connection, like a database host going down.
    func stop() async throws {
        freeze(false)
        let (server, relays) = channels.withLockedValue { state in
            defer { state = (nil, []) }
            return (state.server, state.relays)
        }
        try await server?.close()
        for relay in relays { try? await relay.close() }
    }

    private final class Relay: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let partner: any Channel
        let frozen: NIOLockedValueBox<Bool>

        init(to partner: any Channel, frozen: NIOLockedValueBox<Bool>) {
            self.partner = partner
            self.frozen = frozen
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !frozen.withLockedValue({ $0 }) else { return }
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
