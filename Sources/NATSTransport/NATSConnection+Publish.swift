import CNATS

/// The server's acknowledgement of a JetStream publish.
public struct NATSPublishAcknowledgement: Sendable, Hashable {
    /// The message's sequence in the stream.
    public var sequence: UInt64
    /// The server had already stored a message with this `Nats-Msg-Id` (in its duplicate
    /// window): nothing was stored, `sequence` is the earlier message's.
    public var duplicate: Bool
}

extension NATSConnection {
    /// Publishes `payload` to `subject` and waits for the stream's acknowledgement.
    ///
    /// - Parameters:
    ///   - stream: the stream that stores `subject`, to name in an error.
    ///   - messageID: `Nats-Msg-Id`: the server drops a second message with the same ID.
    ///   - expectedLastSubjectSequence: `Nats-Expected-Last-Subject-Sequence`: the server stores
    ///     the message only if the subject's last message in the stream has this sequence (0:
    ///     the subject has none); `nil` checks nothing.
    ///   - headers: further headers.
    /// - Throws: ``NATSError`` naming the stream, the subject, the message ID and the sequence
    ///   expected; ``NATSError/isWrongLastSequence`` when another message came first.
    public func publish(
        _ payload: ArraySlice<UInt8>, to subject: String, of stream: String, messageID: String, expectedLastSubjectSequence: UInt64?,
        headers: [(String, String)]
    ) throws(NATSError) -> NATSPublishAcknowledgement {
        NATSError.clearLastError()
        let expecting = expectedLastSubjectSequence.map { ", expecting the subject's last sequence \($0)" } ?? ""
        let described = "publish \(messageID) to \(subject) of stream \(stream)\(expecting)"
        var message: OpaquePointer?
        let created = payload.withUnsafeBytes { bytes in
            natsMsg_Create(&message, subject, nil, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        }
        try NATSError.check(created, described)
        defer { natsMsg_Destroy(message) }
        for (name, value) in headers {
            try NATSError.check(natsMsgHeader_Set(message, name, value), described)
        }
        try NATSError.check(natsMsgHeader_Set(message, "Nats-Msg-Id", messageID), described)
        if let expected = expectedLastSubjectSequence {
            // Set by hand: nats.c's option treats 0 as "no expectation".
            try NATSError.check(natsMsgHeader_Set(message, "Nats-Expected-Last-Subject-Sequence", String(expected)), described)
        }
        var acknowledgement: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        let status = js_PublishMsg(&acknowledgement, self.context, message, nil, &code)
        defer { jsPubAck_Destroy(acknowledgement) }
        try NATSError.check(status, described, code: code)
        guard let acknowledgement else { throw NATSError(described, text: "no acknowledgement") }
        return NATSPublishAcknowledgement(sequence: acknowledgement.pointee.Sequence, duplicate: acknowledgement.pointee.Duplicate)
    }

    /// The last message of `subject` in `stream`; `nil` when the subject has none.
    ///
    /// - Throws: ``NATSError``, ``NATSError/isStreamNotFound`` when there is no stream `stream`
    ///   (which is not an empty subject).
    public func lastMessage(in stream: String, subject: String) throws(NATSError) -> NATSMessage? {
        NATSError.clearLastError()
        var message: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let status = js_GetLastMsg(&message, self.context, stream, subject, nil, &code)
        defer { natsMsg_Destroy(message) }
        if code == JSNoMessageFoundErr || (status == NATS_NOT_FOUND && code.rawValue == 0) { return nil }
        try NATSError.check(status, "read the last message of \(subject) in stream \(stream) on \(self.servers.joined(separator: ","))", code: code)
        guard let message else { return nil }
        return NATSMessage(copying: message, streamSequence: natsMsg_GetSequence(message), pending: 0)
    }
}
