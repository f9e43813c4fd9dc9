import CNATS
import Glibc

/// A flow-controlled reader of one subject of a stream, from a given sequence: an ephemeral
/// pull consumer that fetches a bounded batch at a time (at most ``batchMessages`` messages and
/// ``batchBytes(maximumPayload:)`` bytes), so that a reader slower than the stream — one writing
/// a snapshot of millions of rows to disk — holds at most one batch, whatever the stream's
/// size. An ordered push consumer (``NATSOrderedSubscription``) is sent the stream ahead of its
/// reader instead, held in nats.c's subscription, which past its pending limit (64 MiB) drops
/// messages ("Slow Consumer").
///
/// Messages arrive once each, in stream order: each batch is acknowledged as it is fetched (the
/// consumer acknowledges all before it, `AckAll`); a delivery that is not the consumer's next
/// (one lost with the connection, a redelivery) or a consumer the server has dropped (its
/// inactivity threshold passed while the reader was away; asked about once fetches have gone
/// unanswered for ``quietCheckMilliseconds``) makes it start a new consumer after the last
/// message handed out, as nats.c's ordered consumers do. When the reader has caught up
/// (the last message had none pending), it asks for one message at a time, so that the next one
/// is handed out the moment it is published.
///
/// Not for concurrent use: one reader calls ``next(timeoutMilliseconds:)`` at a time. Its calls
/// and ``close()`` block: call them off Swift concurrency's cooperative pool.
public final class NATSPulledSubscription: @unchecked Sendable {
    /// The most messages fetched at once.
    public static let batchMessages = 64

    /// The most bytes fetched at once on a connection whose server accepts payloads of up to
    /// `maximumPayload` bytes: 2 MiB, or more when one message can be larger (the server answers a
    /// fetch that cannot hold the next message with an error rather than the message).
    public static func batchBytes(maximumPayload: Int) -> Int {
        max(2 << 20, maximumPayload + (64 << 10))
    }

    /// How long the server keeps the consumer of a reader that asks for nothing (5 minutes): a
    /// reader that asks again later finds it gone and starts a new one after its last message.
    static let inactiveThresholdNanoseconds: Int64 = 300_000_000_000

    /// After how long without a message the reader asks whether its consumer still exists: a
    /// fetch from a consumer the server has dropped is not answered, it only times out.
    static let quietCheckMilliseconds: Int64 = 5_000

    private let connection: NATSConnection
    private let stream: String
    private let subject: String
    /// The consumer's subscription; replaced when the consumer is started again.
    private var subscription: OpaquePointer
    /// Whether ``close()`` ran.
    private var closed = false
    /// The stream sequence of the last message handed out (0: none yet).
    private var last: UInt64
    /// The consumer sequence of the last delivery from the current consumer (0: none yet).
    private var delivered: UInt64 = 0
    /// Whether the last message handed out had none pending after it.
    private var caughtUp = false
    /// How long fetches have come back empty in a row, in milliseconds (reset by a message and
    /// by each check that the consumer still exists).
    private var quietMilliseconds: Int64 = 0
    /// The fetched batch not yet handed out, in order.
    private var batch: [NATSMessage] = []
    private var batchIndex = 0
    /// What it reads, for errors.
    private let described: String

    /// Reads `subject` of `stream` from `sequence` (1: from the first message the stream holds).
    public init(connection: NATSConnection, stream: String, subject: String, from sequence: UInt64) throws(NATSError) {
        self.connection = connection
        self.stream = stream
        self.subject = subject
        self.described = "read \(subject) of stream \(stream) from \(sequence)"
        self.last = sequence > 0 ? sequence - 1 : 0
        self.subscription = try Self.subscribe(connection, stream: stream, subject: subject, from: sequence, described: self.described)
    }

    deinit {
        self.close()
    }

    /// A new ephemeral pull consumer of `subject` from `sequence`.
    private static func subscribe(
        _ connection: NATSConnection, stream: String, subject: String, from sequence: UInt64, described: String
    ) throws(NATSError) -> OpaquePointer {
        NATSError.clearLastError()
        var subscription: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let status = NATSSubscribeOptions.reading(stream, from: sequence) { options in
            options.Config.AckPolicy = js_AckAll
            // A reader busy with one update for a while (`exec --from` running its command)
            // keeps its consumer; one that died leaves it on the server for this long.
            options.Config.InactiveThreshold = Self.inactiveThresholdNanoseconds
            return js_PullSubscribe(&subscription, connection.context, subject, nil, nil, &options, &code)
        }
        guard status == NATS_OK, let subscription else {
            natsSubscription_Destroy(subscription)
            throw NATSError(described, status: status, code: code)
        }
        return subscription
    }

    /// Ends the subscription: unsubscribes, which deletes the consumer on the server (a request
    /// that blocks for up to the request timeout), and frees it. Once; later calls do nothing.
    public func close() {
        guard !self.closed else { return }
        self.closed = true
        natsSubscription_Unsubscribe(self.subscription)
        natsSubscription_Destroy(self.subscription)
    }

    /// What the server says of the current consumer: its name, and how many messages it has
    /// delivered (to this reader, fetched or not yet handed out). A request: it blocks.
    func consumerState() throws(NATSError) -> (name: String, delivered: UInt64) {
        NATSError.clearLastError()
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(rawValue: 0)
        try NATSError.check(natsSubscription_GetConsumerInfo(&info, self.subscription, nil, &code), "\(self.described): consumer info", code: code)
        defer { jsConsumerInfo_Destroy(info) }
        guard let info else { throw NATSError(self.described, text: "no consumer info") }
        return (info.pointee.Name.map { String(cString: $0) } ?? "", info.pointee.Delivered.Consumer)
    }

    /// Counts `milliseconds` more without a message; once that reaches ``quietCheckMilliseconds``,
    /// asks the server for the consumer and starts a new one when it is gone.
    private func checkConsumer(afterQuiet milliseconds: Int64) throws(NATSError) {
        self.quietMilliseconds += milliseconds
        guard self.quietMilliseconds >= Self.quietCheckMilliseconds else { return }
        self.quietMilliseconds = 0
        do {
            _ = try self.consumerState()
        } catch where error.jetStreamCode == Int(JSConsumerNotFoundErr.rawValue) {
            try self.restart()
        } catch {
            // Unanswered (the connection is being restored, the cluster electing a leader):
            // asked again after the next quiet period.
        }
    }

    /// Starts a new consumer after the last message handed out.
    private func restart() throws(NATSError) {
        natsSubscription_Unsubscribe(self.subscription)
        natsSubscription_Destroy(self.subscription)
        self.batch = []
        self.batchIndex = 0
        self.delivered = 0
        self.caughtUp = false
        self.subscription = try Self.subscribe(self.connection, stream: self.stream, subject: self.subject, from: self.last + 1, described: self.described)
    }

    /// The next message, waiting at most `timeoutMilliseconds` (blocking the calling thread);
    /// `nil` when none came in that time.
    public func next(timeoutMilliseconds: Int64) throws(NATSError) -> NATSMessage? {
        guard !self.closed else { throw NATSError(self.described, text: "the subscription is closed") }
        if self.batchIndex >= self.batch.count {
            self.batch = []
            self.batchIndex = 0
            try self.fetch(timeoutMilliseconds: max(timeoutMilliseconds, 1))
        }
        guard self.batchIndex < self.batch.count else { return nil }
        let message = self.batch[self.batchIndex]
        self.batchIndex += 1
        self.last = message.streamSequence
        self.caughtUp = message.pending == 0
        return message
    }

    /// Fetches the next batch into ``batch`` (nothing when none came in `timeoutMilliseconds`):
    /// at once what the server holds while the reader is behind, else one message as soon as it
    /// is published.
    private func fetch(timeoutMilliseconds: Int64) throws(NATSError) {
        NATSError.clearLastError()
        var request = jsFetchRequest()
        jsFetchRequest_Init(&request)
        request.Expires = timeoutMilliseconds * 1_000_000
        request.MaxBytes = Int64(Self.batchBytes(maximumPayload: self.connection.maximumPayload))
        // Behind: what the server holds now, up to a batch, without waiting (a request that
        // waits would wait for the whole batch). Caught up: the next message, when it comes.
        let behind = !self.caughtUp
        request.Batch = behind ? Int32(Self.batchMessages) : 1
        request.NoWait = behind
        var list = natsMsgList()
        let status = natsSubscription_FetchRequest(&list, self.subscription, &request)
        defer { natsMsgList_Destroy(&list) }
        switch status {
        case NATS_OK:
            break
        case NATS_TIMEOUT:
            try self.checkConsumer(afterQuiet: timeoutMilliseconds)
            return
        case NATS_NOT_FOUND:
            // None held now (asked without waiting): wait for the next one on the next call.
            self.caughtUp = true
            return
        case NATS_NO_RESPONDERS:
            // The consumer is gone (the server dropped it while this reader was away).
            try self.restart()
            return
        default:
            throw NATSError(self.described, status: status)
        }
        var messages: [NATSMessage] = []
        messages.reserveCapacity(Int(list.Count))
        for index in 0..<Int(list.Count) {
            guard let message = list.Msgs[index] else { continue }
            var metadata: UnsafeMutablePointer<jsMsgMetaData>?
            try NATSError.check(natsMsg_GetMetaData(&metadata, message), "\(self.described): message metadata")
            defer { jsMsgMetaData_Destroy(metadata) }
            guard let metadata else { throw NATSError(self.described, text: "a message without metadata") }
            let sequence = metadata.pointee.Sequence
            guard sequence.Consumer == self.delivered + 1 else {
                // A delivery went missing (or this is one again): start over after the last
                // message handed out (this batch is fetched again).
                try self.restart()
                return
            }
            self.delivered = sequence.Consumer
            messages.append(NATSMessage(copying: message, streamSequence: sequence.Stream, pending: metadata.pointee.NumPending))
        }
        self.quietMilliseconds = 0
        // Acknowledges the batch (and all before it): the server may send the next.
        if list.Count > 0, let lastMessage = list.Msgs[Int(list.Count) - 1] {
            _ = natsMsg_Ack(lastMessage, nil)
        }
        self.batch = messages
    }
}
