#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging

/// A swift-log handler that writes one line per log record to standard error, in the form
/// journald understands when it is connected there.
///
/// Under systemd, standard error is a stream to journald, which reads a `<N>` prefix on each line
/// as the syslog priority — so `journalctl -p warning` works — and adds its own timestamp. On a
/// terminal or in a file the handler writes a UTC timestamp and the level name instead.
///
/// ```swift
/// let style = StandardErrorLogHandler.Style(environment: environment)
/// LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, style: style) }
/// ```
///
/// Each record is written with a single `write(2)`, so records from different threads do not
/// interleave within a line.
///
/// With a ``JournalSender`` (standard error is the journal and its native socket answers), each
/// record goes to the journal as one datagram with structured fields instead — `MESSAGE` (the
/// line's text), `PRIORITY`, `SYSLOG_IDENTIFIER=listsyncd`, `LISTSYNC_LOGGER` (the label), and
/// `LISTSYNC_WATCH`, `LISTSYNC_CURSOR`, `LISTSYNC_PATH` from the metadata keys `watch`, `cursor`
/// and `path` — and to standard error only if the journal does not take it.
public struct StandardErrorLogHandler: LogHandler {
    /// How lines are prefixed.
    public enum Style: Sendable, Hashable {
        /// `2025-01-31T12:00:00.123Z warning [label] message key=value`.
        case plain
        /// `<4>[label] message key=value`: the syslog priority for journald.
        case journal

        /// `.journal` when `JOURNAL_STREAM` names the stream that `standardError` is connected to,
        /// `.plain` otherwise.
        ///
        /// Comparing the device and inode, as `systemd.exec(5)` recommends, avoids prefixing
        /// lines when the variable was inherited but standard error was redirected elsewhere
        /// (e.g. `listsyncd 2>file` from a shell inside a service).
        public init(environment: ProcessEnvironment, standardError: Int32 = STDERR_FILENO) {
            var status = stat()
            guard let stream = environment["JOURNAL_STREAM"], fstat(standardError, &status) == 0 else {
                self = .plain
                return
            }
            self.init(journalStream: stream, device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        }

        /// `.journal` when `journalStream` (`DEVICE:INODE`, in decimal) equals `device` and `inode`.
        init(journalStream: String, device: UInt64, inode: UInt64) {
            let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
            let matches = parts.count == 2 && UInt64(parts[0]) == device && UInt64(parts[1]) == inode
            self = matches ? .journal : .plain
        }
    }

    /// The logger's label, written in brackets so a line shows which component wrote it.
    public let label: String
    /// How lines are prefixed.
    public let style: Style
    /// Where lines go: standard error, or a pipe in tests.
    public let fileDescriptor: Int32
    /// Where records go with their fields when standard error is the journal; `nil`: lines only.
    public let journal: JournalSender?
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// A handler for the logger `label`.
    public init(
        label: String,
        style: Style,
        fileDescriptor: Int32 = STDERR_FILENO,
        journal: JournalSender? = nil,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.style = style
        self.fileDescriptor = fileDescriptor
        self.journal = journal
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        if let journal = self.journal, journal.send(self.journalFields(event)) {
            return
        }
        let bytes = Array(self.format(event, timestamp: Self.currentTimestamp()).utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(self.fileDescriptor, $0.baseAddress, $0.count) }
            if result < 0 && errno == EINTR { continue }
            // Nothing useful can be done when standard error is gone; the record is dropped.
            guard result > 0 else { return }
            written += result
        }
    }

    /// The text written for `event`: one line per line of the message, each with the full
    /// prefix (journald would give unprefixed continuation lines the default priority).
    func format(_ event: LogEvent, timestamp: String) -> String {
        let prefix: String
        switch self.style {
        case .journal: prefix = "<\(Self.syslogPriority(of: event.level))>[\(self.label)] "
        case .plain: prefix = "\(timestamp) \(event.level) [\(self.label)] "
        }
        let lines = self.text(of: event, metadata: self.metadata(of: event)).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        return lines.map { prefix + $0 + "\n" }.joined()
    }

    /// The journal fields of `event` (see the type's documentation).
    func journalFields(_ event: LogEvent) -> [(name: String, value: String)] {
        let metadata = self.metadata(of: event)
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", self.text(of: event, metadata: metadata)), ("PRIORITY", "\(Self.syslogPriority(of: event.level))"),
            ("SYSLOG_IDENTIFIER", "listsyncd"), ("LISTSYNC_LOGGER", self.label),
        ]
        for (key, name) in JournalSender.fieldNames.sorted(by: { $0.key < $1.key }) {
            if let value = metadata[key] { fields.append((name, "\(value)")) }
        }
        return fields
    }

    /// The handler's, the provider's and the event's metadata, the event's winning.
    private func metadata(of event: LogEvent) -> Logger.Metadata {
        var merged = self.metadata
        if let provided = self.metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let given = event.metadata { merged.merge(given) { _, new in new } }
        return merged
    }

    /// The message with `metadata` and the error after it as ` key=value`, without a final line break.
    private func text(of event: LogEvent, metadata: Logger.Metadata) -> String {
        var suffix = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        if let error = event.error { suffix += " error=\(error)" }
        var text = "\(event.message)\(suffix)"
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }

    /// The syslog priority journald stores for `level` (`<7>` debug ... `<2>` critical).
    static func syslogPriority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// The current UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    private static func currentTimestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))T"
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2))."
            + "\(padded(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
