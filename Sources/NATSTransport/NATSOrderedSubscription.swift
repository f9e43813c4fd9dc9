import CNATS
import Glibc
import Synchronization

/// An ordered, ephemeral consumer of one subject of a stream, from a given sequence: the server
/// keeps no state for it, and nats.c recreates it (from the next sequence) when a message goes
/// missing or the connection is lost, so messages arrive once each, in stream order.
///
/// Ending it (``close()``) asks the server to delete the consumer, which blocks: call it off
/// Swift concurrency's cooperative pool. A subscription released unclosed is closed then.
public final class NATSOrderedSubscription: @unchecked Sendable {
    private let subscription: OpaquePointer
    /// Whether ``close()`` ran.
    private let closed = Atomic<Bool>(false)
    /// What it reads, for errors.
    private let described: String

    /// Reads `subject` of `stream` from `sequence` (1: from the first message the stream holds).
    public init(connection: NATSConnection, stream: String, subject: String, from sequence: UInt64) throws(NATSError) {
        NATSError.clearLastError()
        self.described = "read \(subject) of stream \(stream) from \(sequence)"
        var subscription: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let status = NATSSubscribeOptions.reading(stream, from: sequence) { options in
            options.Ordered = true
            return js_SubscribeSync(&subscription, connection.context, subject, nil, &options, &code)
        }
        guard status == NATS_OK, let subscription else {
            natsSubscription_Destroy(subscription)
            throw NATSError(self.described, status: status, code: code)
        }
        self.subscription = subscription
    }

    deinit {
        self.close()
    }

    /// Ends the subscription: unsubscribes, which deletes the consumer on the server (a request
    /// that blocks for up to the request timeout), and frees it. Once; later calls do nothing.
    public func close() {
        guard self.closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        natsSubscription_Unsubscribe(self.subscription)
        natsSubscription_Destroy(self.subscription)
    }

    /// The next message, waiting at most `timeoutMilliseconds` (blocking the calling thread);
    /// `nil` when none came in that time.
    public func next(timeoutMilliseconds: Int64) throws(NATSError) -> NATSMessage? {
        NATSError.clearLastError()
        var message: OpaquePointer?
        let status = natsSubscription_NextMsg(&message, self.subscription, timeoutMilliseconds)
        if status == NATS_TIMEOUT { return nil }
        defer { natsMsg_Destroy(message) }
        try NATSError.check(status, self.described)
        guard let message else { return nil }
        var metadata: UnsafeMutablePointer<jsMsgMetaData>?
        try NATSError.check(natsMsg_GetMetaData(&metadata, message), "\(self.described): message metadata")
        defer { jsMsgMetaData_Destroy(metadata) }
        guard let metadata else { throw NATSError(self.described, text: "a message without metadata") }
        return NATSMessage(copying: message, streamSequence: metadata.pointee.Sequence.Stream, pending: metadata.pointee.NumPending)
    }
}
