import NIOCore
import NIOHTTP1

/// Answers the metrics endpoint's requests, behind SwiftNIO's HTTP/1.1 codec:
/// - `GET /metrics`: the exposition in the Prometheus text format;
/// - `GET /live`: 200 while the process runs;
/// - `GET /ready`: 200 when no watch is `loading` (a watch that is `invalid`, `missing` or
///   `writing` is loaded: its last good version, or its absence, is served), 503 otherwise,
///   naming the watches still loading.
///
/// `HEAD` is answered like `GET` without the body; another method gets 405, another path 404.
/// Each request is answered at once, on the event loop; keep-alive is honoured.
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: ServerContext
    /// The head of the request being read; its body, if any, is ignored.
    private var request: HTTPRequestHead?

    init(server: ServerContext) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.request = head
        case .body:
            break
        case .end:
            guard let head = self.request else { return }
            self.request = nil
            self.respond(to: head, context: context)
        }
    }

    /// What a request is answered with.
    private struct Response {
        var status: HTTPResponseStatus
        var contentType = "text/plain; charset=utf-8"
        var body: [UInt8]
        var allow: String?
    }

    private func response(to head: HTTPRequestHead) -> Response {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? head.uri
        let known = ["/metrics", "/live", "/ready"]
        guard known.contains(path) else {
            return Response(status: .notFound, body: Array("not found; try /metrics, /live or /ready\n".utf8))
        }
        guard head.method == .GET || head.method == .HEAD else {
            return Response(status: .methodNotAllowed, body: Array("only GET and HEAD\n".utf8), allow: "GET, HEAD")
        }
        switch path {
        case "/metrics":
            return Response(status: .ok, contentType: DaemonMetrics.contentType, body: self.server.metricsExposition())
        case "/live":
            return Response(status: .ok, body: Array("live\n".utf8))
        default:
            let loading = self.server.watches.loadingWatches
            guard loading.isEmpty else {
                return Response(status: .serviceUnavailable, body: Array("loading: \(loading.joined(separator: ", "))\n".utf8))
            }
            return Response(status: .ok, body: Array("ready\n".utf8))
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let response = self.response(to: head)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: "\(response.body.count)")
        headers.add(name: "Cache-Control", value: "no-store")
        if let allow = response.allow { headers.add(name: "Allow", value: allow) }
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: response.status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        let written = context.writeAndFlush(Self.wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request the codec cannot parse: it has answered 400 if it could; nothing more to say.
        context.close(promise: nil)
    }
}
