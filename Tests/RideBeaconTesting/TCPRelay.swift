import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP relay on a loopback port (bound to port 0, so never a port someone else got) that
/// tests use to break connections the way networks do: cut every open connection, lose a
/// response after the server did the work, take the far side down and bring it back, or
/// freeze it (a partition: bytes vanish, connections stay open).
public final class TCPRelay: Sendable {
    /// The relay's own port; clients connect here instead of to the target.
    public let port: Int
    private let state: NIOLockedValueBox<State>
    private let server: any Channel

    private struct State {
        var relays: [any Channel] = []
        /// While down, new connections are closed as soon as they are accepted.
        var up: Bool
        /// While frozen, bytes are swallowed and connections stay open.
        var frozen = false
        /// Responses still to lose: the target's first bytes close both sides instead of arriving.
        var responsesToDrop = 0
    }

    /// Listens on 127.0.0.1 and relays every connection to `host:targetPort`.
    /// - Parameter up: false starts with the target "down" (connections refused) until `comeUp()`.
    public init(to host: String = "127.0.0.1", port targetPort: Int, up: Bool = true) async throws {
        let state = NIOLockedValueBox(State(up: up))
        self.state = state
        server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                guard state.withLockedValue({ $0.up }) else { return inbound.close() }
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(Pipe(to: inbound, state: state, response: true))
                        }
                    }
                    .connect(host: host, port: targetPort)
                    .flatMap { outbound in
                        state.withLockedValue { $0.relays += [inbound, outbound] }
                        return inbound.eventLoop.makeCompletedFuture {
                            try inbound.pipeline.syncOperations.addHandler(Pipe(to: outbound, state: state, response: false))
                        }.flatMap { inbound.setOption(.autoRead, value: true) }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = server.localAddress?.port ?? 0
    }

    /// Convenience for a target on 127.0.0.1.
    public convenience init(toPort targetPort: Int) async throws {
        try await self.init(to: "127.0.0.1", port: targetPort)
    }

    /// Closes every relayed connection; new ones are still accepted.
    public func cutConnections() async {
        let relays = state.withLockedValue { state in
            defer { state.relays = [] }
            return state.relays
        }
        for relay in relays { try? await relay.close() }
    }

    /// The next `count` responses are lost after the target has handled their requests.
    public func dropResponses(_ count: Int) {
        state.withLockedValue { $0.responsesToDrop = count }
    }

    /// A partition while on: bytes are swallowed, connections neither answer nor fail.
    public func freeze(_ on: Bool) {
        state.withLockedValue { $0.frozen = on }
    }

    /// The target host goes down: open connections are cut and new ones closed on arrival.
    public func goDown() async {
        state.withLockedValue { $0.up = false; $0.frozen = false }
        await cutConnections()
    }

    /// The target host is back: connections are relayed again.
    public func comeUp() {
        state.withLockedValue { $0.up = true }
    }

    /// Stops listening for good and cuts every connection; the port then refuses connections.
    public func stop() async {
        await cutConnections()
        try? await server.close()
    }

    private final class Pipe: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let partner: any Channel
        let state: NIOLockedValueBox<State>
        /// The target-to-client direction, where responses are dropped.
        let response: Bool

        init(to partner: any Channel, state: NIOLockedValueBox<State>, response: Bool) {
            self.partner = partner
            self.state = state
            self.response = response
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let response = self.response
            let (frozen, drop) = state.withLockedValue { state -> (Bool, Bool) in
                guard !state.frozen else { return (true, false) }
                guard response, state.responsesToDrop > 0 else { return (false, false) }
                state.responsesToDrop -= 1
                return (false, true)
            }
            if frozen { return }
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
