import CNATS
import Glibc

/// One connection to a NATS server or cluster, with its JetStream context: the only owner of
/// nats.c handles in the project.
///
/// nats.c reconnects by itself (to any of the servers given, without limit) and its calls are
/// thread-safe; they block the calling thread for at most their timeout.
public final class NATSConnection: @unchecked Sendable {
    /// The servers connected to, as given.
    public let servers: [String]
    private let connection: OpaquePointer
    private let jetStream: OpaquePointer

    /// How to connect.
    public struct Settings: Sendable {
        /// `nats://HOST:PORT` URLs of one cluster; nats.c tries them in turn.
        public var servers: [String]
        /// A credentials file (JWT and NKey seed) for the account, if the servers require one.
        public var credentials: String?
        /// The client's name, as the server shows it.
        public var name: String
        /// How long a request (a publish acknowledgement, a stream lookup) may take, in milliseconds.
        public var requestTimeout: Int64

        /// Settings for `servers`.
        public init(servers: [String], credentials: String? = nil, name: String, requestTimeout: Int64 = 5000) {
            self.servers = servers
            self.credentials = credentials
            self.name = name
            self.requestTimeout = requestTimeout
        }
    }

    /// Connects to one of `settings.servers` (fails when none answers) and opens JetStream.
    /// Blocks the calling thread for up to the connect timeout (2 s) per server: call it off
    /// Swift concurrency's cooperative pool.
    public init(_ settings: Settings) throws(NATSError) {
        NATSError.clearLastError()
        let described = "connect to \(settings.servers.joined(separator: ","))"
        guard !settings.servers.isEmpty else { throw NATSError(described, text: "no server given") }
        var options: OpaquePointer?
        try NATSError.check(natsOptions_Create(&options), described)
        defer { natsOptions_Destroy(options) }
        var urls = settings.servers.map { strdup($0) }
        defer { urls.forEach { free($0) } }
        let status = urls.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                natsOptions_SetServers(options, $0, Int32(buffer.count))
            }
        }
        try NATSError.check(status, described)
        try NATSError.check(natsOptions_SetName(options, settings.name), described)
        try NATSError.check(natsOptions_SetMaxReconnect(options, -1), described)
        try NATSError.check(natsOptions_SetReconnectWait(options, 250), described)
        try NATSError.check(natsOptions_SetTimeout(options, 2000), described)
        if let credentials = settings.credentials {
            try NATSError.check(natsOptions_SetUserCredentialsFromFiles(options, credentials, nil), "\(described): credentials \(credentials)")
        }
        var connection: OpaquePointer?
        try NATSError.check(natsConnection_Connect(&connection, options), described)
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = settings.requestTimeout
        var context: OpaquePointer?
        let opened = natsConnection_JetStream(&context, connection, &jsOptions)
        guard opened == NATS_OK, let connection, let context else {
            natsConnection_Destroy(connection)
            throw NATSError("\(described): JetStream", status: opened)
        }
        self.servers = settings.servers
        self.connection = connection
        self.jetStream = context
    }

    deinit {
        jsCtx_Destroy(self.jetStream)
        natsConnection_Close(self.connection)
        natsConnection_Destroy(self.connection)
    }

    /// The largest message payload the server accepts, in bytes (`max_payload`, 1 MiB by default).
    public var maximumPayload: Int { Int(natsConnection_GetMaxPayload(self.connection)) }

    /// The JetStream context, for the extensions in this module.
    var context: OpaquePointer { self.jetStream }
}
