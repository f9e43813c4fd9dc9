import Foundation
import Glibc

/// Plain HTTP requests for end-to-end tests, made by Python's `urllib` — a client independent
/// of the daemon's SwiftNIO codec — to loopback endpoints the tests started.
package enum HTTPFetch {
    /// What a server answered.
    package struct Response: Sendable {
        package var status: Int
        package var contentType: String
        package var body: String
    }

    /// Requests `url` with `method` (a body-less `POST` for any other method than `GET`/`HEAD`);
    /// an HTTP error status is an answer, not a failure. Throws when nothing answers. The
    /// client runs as a child process awaited without holding a thread of the pool.
    package static func request(_ url: String, method: String = "GET") async throws -> Response {
        let script = """
            import json, sys, urllib.request, urllib.error
            request = json.load(sys.stdin)
            r = urllib.request.Request(request["url"], method=request["method"])
            try:
                with urllib.request.urlopen(r, timeout=20) as answer:
                    status, headers, body = answer.status, answer.headers, answer.read()
            except urllib.error.HTTPError as error:
                status, headers, body = error.code, error.headers, error.read()
            json.dump({"status": status, "type": headers.get("Content-Type", ""), "body": body.decode("utf-8")}, sys.stdout)
            """
        let output = try await Python.output(of: script, input: ["url": url, "method": method], passing: .standardInput)
        return try Self.decode(output)
    }

    private static func decode(_ output: String) throws -> Response {
        guard let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], let status = document["status"] as? Int, let type = document["type"] as? String, let body = document["body"] as? String else {
            throw TestFailure("not an HTTP answer: \(output)")
        }
        return Response(status: status, contentType: type, body: body)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (``LoopbackPort/free()``).
    package static func freeLoopbackPort() throws -> Int {
        try LoopbackPort.free()
    }
}
