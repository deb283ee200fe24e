import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP relay between the client and the server that tests use to break connections the way
/// networks do: cut every open connection, or lose a response after the server did the work.
final class TCPRelay: Sendable {
    let port: Int
    private let targetPort: Int
    private let state = NIOLockedValueBox<(server: (any Channel)?, relays: [any Channel])>((nil, []))
    /// Responses still to lose: the server's first bytes close both sides instead of arriving.
    private let responsesToDrop = NIOLockedValueBox(0)

    init(toPort targetPort: Int) async throws {
        self.targetPort = targetPort
        let relays = state, drop = responsesToDrop
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(Pipe(to: inbound, dropping: drop))
                        }
                    }
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMap { outbound in
                        relays.withLockedValue { $0.relays += [inbound, outbound] }
                        return inbound.eventLoop.makeCompletedFuture {
                            try inbound.pipeline.syncOperations.addHandler(Pipe(to: outbound, dropping: nil))
                        }.flatMap { inbound.setOption(.autoRead, value: true) }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = server.localAddress?.port ?? 0
        state.withLockedValue { $0.server = server }
    }

    /// Closes every relayed connection; new ones are still accepted.
    func cutConnections() async {
        let relays = state.withLockedValue { state in
            defer { state.relays = [] }
            return state.relays
        }
        for relay in relays { try? await relay.close() }
    }

    /// The next `count` responses are lost after the server has handled their requests.
    func dropResponses(_ count: Int) {
        responsesToDrop.withLockedValue { $0 = count }
    }

    func stop() async {
        await cutConnections()
        let server = state.withLockedValue { $0.server }
        try? await server?.close()
    }

    private final class Pipe: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let partner: any Channel
        /// Set on the server-to-client direction only.
        let dropping: NIOLockedValueBox<Int>?

        init(to partner: any Channel, dropping: NIOLockedValueBox<Int>?) {
            self.partner = partner
            self.dropping = dropping
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let drop = dropping?.withLockedValue { count in
                guard count > 0 else { return false }
                count -= 1
                return true
            } ?? false
            if drop {
                partner.close(promise: nil)
                context.close(promise: nil)
                return
            }
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
