// The second server: the same three paths as the Python one, on SwiftNIO's WebSocket upgrader, one event loop, run
// by the tool as a child process of its own (`WebSocketBenchmark serve PORT`) so that its CPU time is not the
// client's. It speaks frames rather than messages (every client here sends each message as one frame) and offers no
// permessage-deflate, so that the compressed phases run against the Python server only. While it streams, it does not
// count on reading: one turn of its loop may write until the socket is full, and a client that keeps up keeps it
// writing; so a stream ends by itself, after a count or a time the path gives.
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Serves on a loopback port until killed, or until its standard input ends: the tool that started it has ended.
///
/// - Parameter port: The port.
func runEchoServer(port: Int) -> Never {
    // A child started by Foundation's `Process` may inherit a mask that blocks SIGTERM.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigprocmask(SIG_SETMASK, &signals, nil)
    Thread {
        while FileHandle.standardInput.availableData.count > 0 {}
        exit(0)
    }
    .start()
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let upgrader = NIOWebSocketServerUpgrader(
        maxFrameSize: 16 << 20,
        shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
        upgradePipelineHandler: { channel, head in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(EchoHandler(path: head.uri))
            }
        }
    )
    let bootstrap = ServerBootstrap(group: group)
        .serverChannelOption(.backlog, value: 64)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.pipeline.configureHTTPServerPipeline(
                withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
            )
        }
    do {
        let channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
        try channel.closeFuture.wait()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("WebSocketBenchmark serve: \(error)\n".utf8))
        exit(1)
    }
}

/// One upgraded connection: echoes, counts, or streams, by the request's path.
private final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private enum Role {
        case echo
        case sink
        case stream(ByteBuffer, count: Int, until: NIODeadline?)
    }

    private let role: Role
    private var counted = 0
    private var streaming = false
    private var pumpScheduled = false

    init(path: String) {
        let parts = path.split(separator: "/")
        if parts.count == 4, parts[0] == "stream", let size = Int(parts[1]), let count = Int(parts[2]),
            let seconds = Double(parts[3])
        {
            let until = seconds > 0 ? NIODeadline.now() + .milliseconds(Int64(seconds * 1_000)) : nil
            role = .stream(ByteBuffer(bytes: payload(size: size)), count: count, until: until)
        } else if path == "/sink" {
            role = .sink
        } else {
            role = .echo
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if case .stream = role {
            streaming = true
            pump(context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            streaming = false
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { [channel = context.channel] _ in
                channel.close(promise: nil)
            }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.write(wrapOutboundOut(pong), promise: nil)
        case .text:
            switch role {
            case .echo:
                let echo = WebSocketFrame(fin: frame.fin, opcode: .text, data: frame.unmaskedData)
                context.write(wrapOutboundOut(echo), promise: nil)
            case .sink:
                write(text: String(counted), context: context)
                counted = 0
            case .stream:
                break
            }
        case .binary, .continuation:
            switch role {
            case .echo:
                let echo = WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)
                context.write(wrapOutboundOut(echo), promise: nil)
            case .sink:
                counted += frame.fin ? 1 : 0
            case .stream:
                break
            }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        pump(context: context)
    }

    /// Writes streamed messages while the channel takes them, then flushes; after the last one, `stopped`.
    private func pump(context: ChannelHandlerContext) {
        guard streaming, case .stream(let message, let count, let until) = role else { return }
        let frame = WebSocketFrame(fin: true, opcode: .binary, data: message)
        while streaming && context.channel.isWritable {
            if (count > 0 && counted >= count) || (counted % 64 == 0 && until.map { .now() >= $0 } ?? false) {
                streaming = false
                write(text: "stopped", context: context)
                break
            }
            context.write(wrapOutboundOut(frame), promise: nil)
            counted += 1
        }
        context.flush()
    }

    private func write(text: String, context: ChannelHandlerContext) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
        context.write(wrapOutboundOut(frame), promise: nil)
    }
}
