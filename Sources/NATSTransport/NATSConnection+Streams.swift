import CNATS
import Glibc

/// What the server says about a stream.
public struct NATSStreamState: Sendable, Hashable {
    /// The first sequence the stream still holds (after retention dropped older ones).
    public var firstSequence: UInt64
    /// The last sequence stored, 0 when none.
    public var lastSequence: UInt64
    /// How many messages it holds.
    public var messages: UInt64
    /// How many bytes its messages take, as the server counts them (payload, headers, subject).
    public var bytes: UInt64
    /// When its first message was stored, in nanoseconds since 1970 (0 when it holds none).
    public var firstTimeNanoseconds: Int64
    /// When its last message was stored, in nanoseconds since 1970 (0 when it holds none).
    public var lastTimeNanoseconds: Int64
    /// How many servers keep a copy.
    public var replicas: Int
    /// The subjects it stores.
    public var subjects: [String]
    /// The name of the server that leads the stream's replicas (`nil` outside a cluster).
    public var leader: String?
}

extension NATSConnection {
    /// The stream `settings.name`, created with `settings` when it does not exist (file storage,
    /// limits retention without byte or age limits). An existing stream is used as it is: its subjects must include
    /// `settings.subjects`. `timeoutMilliseconds` bounds the wait for each answer (default: the
    /// connection's request timeout).
    @discardableResult
    public func ensureStream(_ settings: NATSStreamSettings, timeoutMilliseconds: Int64? = nil) throws(NATSError) -> NATSStreamState {
        NATSError.clearLastError()
        if let existing = try self.streamState(settings.name, timeoutMilliseconds: timeoutMilliseconds) {
            let missing = settings.subjects.filter { !existing.subjects.contains($0) }
            guard missing.isEmpty else {
                throw NATSError("use stream \(settings.name)", text: "it does not store the subject \(missing.joined(separator: ", ")) (it stores \(existing.subjects.joined(separator: ", ")))")
            }
            return existing
        }
        NATSError.clearLastError()
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        var subjects = settings.subjects.map { strdup($0) }
        defer { subjects.forEach { free($0) } }
        let name = strdup(settings.name)
        defer { free(name) }
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = subjects.withUnsafeMutableBufferPointer { buffer -> natsStatus in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { pointer in
                config.Name = UnsafePointer(name)
                config.Subjects = UnsafeMutablePointer(mutating: pointer)
                config.SubjectsLen = Int32(buffer.count)
                config.Replicas = Int64(settings.replicas)
                config.Storage = js_FileStorage
                config.Retention = js_LimitsPolicy
                config.Discard = js_DiscardOld
                config.MaxBytes = -1
                config.MaxAge = 0
                config.Duplicates = settings.duplicateWindowSeconds * 1_000_000_000
                var options = jsOptions()
                jsOptions_Init(&options)
                if let timeoutMilliseconds { options.Wait = timeoutMilliseconds }
                return js_AddStream(&info, self.context, &config, &options, &code)
            }
        }
        defer { jsStreamInfo_Destroy(info) }
        if code == JSStreamNameExistErr, let existing = try self.streamState(settings.name, timeoutMilliseconds: timeoutMilliseconds) {
            return existing
        }
        try NATSError.check(status, "create stream \(settings.name)", code: code)
        guard let info else { throw NATSError("create stream \(settings.name)", text: "no stream information in the answer") }
        return Self.state(of: info.pointee)
    }

    /// The stream `name`'s state; `nil` when there is no such stream. `timeoutMilliseconds`
    /// bounds the wait for the answer (default: the connection's request timeout).
    public func streamState(_ name: String, timeoutMilliseconds: Int64? = nil) throws(NATSError) -> NATSStreamState? {
        NATSError.clearLastError()
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        var options = jsOptions()
        jsOptions_Init(&options)
        if let timeoutMilliseconds { options.Wait = timeoutMilliseconds }
        let status = js_GetStreamInfo(&info, self.context, name, &options, &code)
        defer { jsStreamInfo_Destroy(info) }
        if status == NATS_NOT_FOUND || code == JSStreamNotFoundErr { return nil }
        try NATSError.check(status, "look up stream \(name)", code: code)
        guard let info else { return nil }
        return Self.state(of: info.pointee)
    }

    /// Removes the messages of `subject` in `stream` whose sequence is below `sequence`; the
    /// stream's other subjects keep theirs.
    public func purge(_ stream: String, subject: String, below sequence: UInt64) throws(NATSError) {
        NATSError.clearLastError()
        var options = jsOptions()
        jsOptions_Init(&options)
        var code = jsErrCode(rawValue: 0)
        let status = subject.withCString { subjectPointer in
            options.Stream.Purge.Subject = subjectPointer
            options.Stream.Purge.Sequence = sequence
            return js_PurgeStream(self.context, stream, &options, &code)
        }
        try NATSError.check(status, "purge \(subject) below sequence \(sequence) in stream \(stream)", code: code)
    }

    private static func state(of info: jsStreamInfo) -> NATSStreamState {
        var subjects: [String] = []
        if let config = info.Config, let list = config.pointee.Subjects {
            for index in 0..<Int(config.pointee.SubjectsLen) {
                if let subject = list[index] { subjects.append(String(cString: subject)) }
            }
        }
        return NATSStreamState(
            firstSequence: info.State.FirstSeq, lastSequence: info.State.LastSeq, messages: info.State.Msgs,
            bytes: info.State.Bytes, firstTimeNanoseconds: info.State.FirstTime,
            lastTimeNanoseconds: info.State.LastTime,
            replicas: Int(info.Config?.pointee.Replicas ?? 1), subjects: subjects,
            leader: info.Cluster?.pointee.Leader.map { String(cString: $0) })
    }
}
