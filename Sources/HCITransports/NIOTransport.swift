import RadioCore
import NIOCore
import NIOPosix

/// TCP and unix-socket controllers (Bumble's `tcp-server:`, socat'd UARTs, QEMU, ...) and any
/// file descriptor that carries H4 (a tty, an HCI user-channel socket), over SwiftNIO.
public struct NIOTransport: HCITransport {
    public enum Endpoint: Sendable {
        case tcp(host: String, port: Int)
        case unix(path: String)
        /// Opens a descriptor for each connection; NIO takes ownership and closes it.
        case descriptor(name: String, open: @Sendable () throws -> Int32)
    }

    public let endpoint: Endpoint
    let group: any EventLoopGroup

    public init(_ endpoint: Endpoint, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.endpoint = endpoint
        self.group = group
    }

    public var description: String {
        switch endpoint {
        case .tcp(let host, let port): "tcp:\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        case .descriptor(let name, _): name
        }
    }

    public func open() async throws -> HCILink {
        let (inbound, continuation) = AsyncThrowingStream<HCIChunk, any Error>.makeStream()
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(LinkInboundHandler(continuation))
            }
        }
        let channel: any Channel
        do {
            switch endpoint {
            case .tcp(let host, let port):
                channel = try await ClientBootstrap(group: group)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .connectTimeout(.seconds(2))
                    .channelInitializer(initializer)
                    .connect(host: host, port: port).get()
            case .unix(let path):
                channel = try await ClientBootstrap(group: group)
                    .connectTimeout(.seconds(2))
                    .channelInitializer(initializer)
                    .connect(unixDomainSocketPath: path).get()
            case .descriptor(_, let open):
                let fd = try open()
                channel = try await NIOPipeBootstrap(group: group)
                    .channelInitializer(initializer)
                    .takingOwnershipOfDescriptor(inputOutput: fd).get()
            }
        } catch {
            continuation.finish(throwing: error)
            throw error
        }
        continuation.onTermination = { _ in channel.close(promise: nil) }
        return HCILink(
            inbound: inbound,
            send: { bytes in try await channel.writeAndFlush(ByteBuffer(bytes: bytes)) },
            close: { try? await channel.close() }
        )
    }
}

/// Hands every read to the link's stream; EOF and errors end it.
final class LinkInboundHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let continuation: AsyncThrowingStream<HCIChunk, any Error>.Continuation

    init(_ continuation: AsyncThrowingStream<HCIChunk, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { continuation.yield(HCIChunk(bytes)) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
