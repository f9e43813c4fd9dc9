import CNATS
import Glibc

/// A message read from a stream: its subject, headers, payload and place in the stream.
public struct NATSMessage: Sendable {
    /// The subject it was published to.
    public var subject: String
    /// Its headers (one value per name: the first).
    public var headers: [String: String]
    /// Its payload.
    public var payload: [UInt8]
    /// Its sequence in the stream.
    public var streamSequence: UInt64
    /// How many messages of the subscription follow it on the server (0 for a message fetched
    /// by sequence): 0 means it was the last one when it was delivered.
    public var pending: UInt64

    /// A copy of nats.c's `message` (which stays the caller's to destroy).
    init(copying message: OpaquePointer, streamSequence: UInt64, pending: UInt64) {
        self.subject = natsMsg_GetSubject(message).map { String(cString: $0) } ?? ""
        let length = Int(natsMsg_GetDataLength(message))
        if length > 0, let data = natsMsg_GetData(message) {
            self.payload = data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        } else {
            self.payload = []
        }
        var headers: [String: String] = [:]
        var keys: UnsafeMutablePointer<UnsafePointer<CChar>?>?
        var count: Int32 = 0
        if natsMsgHeader_Keys(message, &keys, &count) == NATS_OK, let keys {
            for index in 0..<Int(count) {
                guard let key = keys[index] else { continue }
                var value: UnsafePointer<CChar>?
                if natsMsgHeader_Get(message, key, &value) == NATS_OK, let value {
                    headers[String(cString: key)] = String(cString: value)
                }
            }
            free(keys)
        }
        self.headers = headers
        self.streamSequence = streamSequence
        self.pending = pending
    }
}
