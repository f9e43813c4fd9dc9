import CNATS

/// A nats.c call that failed: which operation, nats.c's status and text, and for JetStream
/// requests the server's error code (e.g. 10071, wrong last sequence).
public struct NATSError: Error, Sendable, CustomStringConvertible {
    /// What was being done ("connect to nats://…", "publish to listsync.products", …).
    public let operation: String
    /// nats.c's status (`natsStatus`'s raw value).
    public let status: UInt32
    /// The JetStream error code the server answered with, 0 when none.
    public let jetStreamCode: Int
    /// nats.c's description of the failure (its last error text, else the status's text).
    public let text: String

    /// The failure of `operation` with `status` (and the JetStream `code`).
    ///
    /// nats.c keeps its last error text per thread, and a call that fails without setting one
    /// leaves an earlier call's there: the text is taken only when it is this status's, and
    /// every call of the wrapper clears it first (``clearLastError()``).
    init(_ operation: String, status: natsStatus, code: jsErrCode = jsErrCode(rawValue: 0)) {
        self.operation = operation
        self.status = status.rawValue
        self.jetStreamCode = Int(code.rawValue)
        var lastStatus = NATS_OK
        if let last = nats_GetLastError(&lastStatus), lastStatus == status, last.pointee != 0 {
            self.text = String(cString: last)
        } else {
            self.text = String(cString: natsStatus_GetText(status))
        }
    }

    /// Forgets the calling thread's last nats.c error text, before a call whose failure
    /// ``init(_:status:code:)`` will describe.
    static func clearLastError() {
        nats_clearLastError()
    }

    /// A failure described by the wrapper itself.
    init(_ operation: String, text: String) {
        self.operation = operation
        self.status = NATS_ERR.rawValue
        self.jetStreamCode = 0
        self.text = text
    }

    /// The server refused a publish because the subject's last sequence was not the one expected
    /// (another publisher wrote first).
    public var isWrongLastSequence: Bool { self.jetStreamCode == Int(JSStreamWrongLastSequenceErr.rawValue) }

    /// The stream asked for does not exist (JetStream error 10059).
    public var isStreamNotFound: Bool { self.jetStreamCode == Int(JSStreamNotFoundErr.rawValue) }

    /// The stream (or the message asked for) does not exist.
    public var isNotFound: Bool {
        self.jetStreamCode == Int(JSStreamNotFoundErr.rawValue) || self.jetStreamCode == Int(JSNoMessageFoundErr.rawValue)
            || self.status == NATS_NOT_FOUND.rawValue
    }

    /// The request timed out: it may or may not have been carried out.
    public var isTimeout: Bool { self.status == NATS_TIMEOUT.rawValue }

    public var description: String {
        let code = self.jetStreamCode != 0 ? " (JetStream error \(self.jetStreamCode))" : ""
        return "\(self.operation): \(self.text)\(code)"
    }

    /// Throws unless `status` is `NATS_OK`.
    static func check(_ status: natsStatus, _ operation: @autoclosure () -> String, code: jsErrCode = jsErrCode(rawValue: 0)) throws(NATSError) {
        guard status == NATS_OK else { throw NATSError(operation(), status: status, code: code) }
    }
}
