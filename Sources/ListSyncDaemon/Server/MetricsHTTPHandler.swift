import NIOCore
import NIOHTTP1

/// Answers the metrics endpoint's requests, behind SwiftNIO's HTTP/1.1 codec:
/// - `GET /metrics`: the exposition in the Prometheus text format, sampled on the thread pool
///   (``ServerContext/metricsExposition(on:)``);
/// - `GET /live`: 200 while the process runs;
/// - `GET /ready`: 200 when no watch is `loading` (a watch that is `invalid`, `missing` or
///   `writing` is loaded: its last good version, or its absence, is served), 503 otherwise,
///   naming the watches still loading.
///
/// `HEAD` is answered like `GET` without the body; another method gets 405, another path 404.
/// A request that announces a body gets 413 and one whose head is larger than the codec's
/// limits (``MetricsEndpoint/Limits``) 431, and the connection is closed; one the codec cannot
/// parse gets 400. Keep-alive is honoured; an idle connection is closed (`IdleStateHandler`).
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The paths served.
    enum Route: String, CaseIterable {
        case metrics = "/metrics"
        case live = "/live"
        case ready = "/ready"
    }

    private let server: ServerContext
    private let connections: MetricsConnections
    /// The head of the request being read; `nil` between requests, and after a request refused
    /// for its body (the connection closes).
    private var request: HTTPRequestHead?
    /// Set while the handler is in the pipeline: an exposition sampled on the pool is written
    /// only to a connection still there.
    private var context: ChannelHandlerContext?

    init(server: ServerContext, connections: MetricsConnections) {
        self.server = server
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.connections.noteBusy(context.channel)
            guard !Self.announcesBody(head) else {
                let body = Array("a request to this endpoint has no body\n".utf8)
                self.respond(Response(status: .payloadTooLarge, body: body), to: head, closing: true, context: context)
                return
            }
            self.request = head
        case .body:
            break
        case .end:
            guard let head = self.request else { return }
            self.request = nil
            self.answer(head, context: context)
        }
    }

    /// Whether the codec will read a body after `head`: a `Content-Length` other than 0, or a
    /// `Transfer-Encoding`.
    private static func announcesBody(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "Transfer-Encoding") || head.headers["Content-Length"].contains { $0 != "0" }
    }

    /// What a request is answered with.
    private struct Response {
        var status: HTTPResponseStatus
        var contentType = "text/plain; charset=utf-8"
        var body: [UInt8]
        var allow: String?
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? head.uri
        guard let route = Route(rawValue: path) else {
            let known = Route.allCases.map(\.rawValue).joined(separator: ", ")
            return self.respond(Response(status: .notFound, body: Array("not found; try \(known)\n".utf8)), to: head, context: context)
        }
        guard head.method == .GET || head.method == .HEAD else {
            let response = Response(status: .methodNotAllowed, body: Array("only GET and HEAD\n".utf8), allow: "GET, HEAD")
            return self.respond(response, to: head, context: context)
        }
        switch route {
        case .metrics:
            self.server.metricsExposition(on: context.eventLoop).assumeIsolated().whenComplete { result in
                guard let context = self.context else { return }
                let response: Response
                switch result {
                case .success(let exposition):
                    response = Response(status: .ok, contentType: DaemonMetrics.contentType, body: exposition)
                case .failure:
                    response = Response(status: .serviceUnavailable, body: Array("shutting down\n".utf8))
                }
                self.respond(response, to: head, context: context)
            }
        case .live:
            self.respond(Response(status: .ok, body: Array("live\n".utf8)), to: head, context: context)
        case .ready:
            let loading = self.server.watches.loadingWatches
            let response =
                loading.isEmpty
                ? Response(status: .ok, body: Array("ready\n".utf8))
                : Response(status: .serviceUnavailable, body: Array("loading: \(loading.joined(separator: ", "))\n".utf8))
            self.respond(response, to: head, context: context)
        }
    }

    /// Writes `response` to `head` (with `Connection: close` and then closes, when the client
    /// asked for it or `closing`), then counts the connection idle.
    private func respond(_ response: Response, to head: HTTPRequestHead, closing: Bool = false, context: ChannelHandlerContext) {
        let keepAlive = head.isKeepAlive && !closing
        self.write(response, version: head.version, keepAlive: keepAlive, omittingBody: head.method == .HEAD, context: context)
        self.connections.noteIdle(context.channel)
    }

    private func write(_ response: Response, version: HTTPVersion, keepAlive: Bool, omittingBody: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: "\(response.body.count)")
        headers.add(name: "Cache-Control", value: "no-store")
        if let allow = response.allow { headers.add(name: "Allow", value: allow) }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))), promise: nil)
        if !omittingBody {
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        let written = context.writeAndFlush(Self.wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        // Nothing read or written for the idle timeout: the connection is given up.
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request the codec cannot parse: 431 for a head past its limits, else 400, and the
        // connection closes (the codec reads no further).
        if let parserError = error as? HTTPParserError {
            let (status, text): (HTTPResponseStatus, String) =
                if case .headerOverflow = parserError {
                    (.requestHeaderFieldsTooLarge, "the request's head is too large\n")
                } else {
                    (.badRequest, "not an HTTP/1.1 request this endpoint can read\n")
                }
            self.write(Response(status: status, body: Array(text.utf8)), version: .http1_1, keepAlive: false, omittingBody: false, context: context)
        }
        context.close(promise: nil)
    }
}
