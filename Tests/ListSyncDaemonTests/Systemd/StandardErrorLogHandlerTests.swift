#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import Testing

@testable import ListSyncDaemon

@Suite("StandardErrorLogHandler")
struct StandardErrorLogHandlerTests {
    private func logger(_ style: StandardErrorLogHandler.Style, _ pipe: Pipe) -> Logger {
        var logger = Logger(label: "watcher") { label in
            StandardErrorLogHandler(label: label, style: style, fileDescriptor: pipe.writeEnd)
        }
        logger.logLevel = .info
        return logger
    }

    @Test("journal style: every line starts with the syslog priority of the level")
    func journal() throws {
        let pipe = try Pipe()
        var logger = self.logger(.journal, pipe)
        logger[metadataKey: "watch"] = "products"
        logger.debug("below the level")
        logger.info("loaded", metadata: ["rows": "3"])
        logger.warning("line one\nline two")
        logger.critical("down")
        #expect(
            pipe.drain() == """
                <6>[watcher] loaded rows=3 watch=products
                <4>[watcher] line one
                <4>[watcher] line two watch=products
                <2>[watcher] down watch=products

                """
        )
    }

    @Test("every level maps to its syslog priority")
    func priorities() {
        let expected: [(Logger.Level, Int)] = [
            (.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
        ]
        for (level, priority) in expected {
            #expect(StandardErrorLogHandler.syslogPriority(of: level) == priority)
        }
    }

    @Test("plain style: a UTC timestamp and the level name")
    func plain() throws {
        let pipe = try Pipe()
        self.logger(.plain, pipe).error("cannot read", metadata: ["path": "/d/a.csv"])
        let line = pipe.drain()
        let parts = line.split(separator: " ", maxSplits: 1)
        #expect(parts.count == 2)
        #expect(parts.last == "error [watcher] cannot read path=/d/a.csv\n")
        let timestamp = Array(parts.first ?? "")
        // YYYY-MM-DDTHH:MM:SS.mmmZ
        #expect(timestamp.count == 24)
        #expect(timestamp.indices.allSatisfy { index in
            switch index {
            case 4, 7: return timestamp[index] == "-"
            case 10: return timestamp[index] == "T"
            case 13, 16: return timestamp[index] == ":"
            case 19: return timestamp[index] == "."
            case 23: return timestamp[index] == "Z"
            default: return timestamp[index].isNumber
            }
        })
    }

    @Test("an attached error is written after the metadata")
    func attachedError() {
        let handler = StandardErrorLogHandler(label: "l", style: .journal)
        let event = LogEvent(
            level: .error,
            message: "reload failed",
            error: SystemdError.unsupportedNotifySocket("x"),
            metadata: nil,
            source: nil,
            file: #fileID,
            function: #function,
            line: #line
        )
        #expect(
            handler.format(event, timestamp: "T")
                == "<3>[l] reload failed error=NOTIFY_SOCKET=\"x\": only a path or an @abstract name is supported\n"
        )
    }

    @Test("JOURNAL_STREAM selects the journal style only when it names our standard error")
    func styleDetection() throws {
        let pipe = try Pipe()
        var status = stat()
        #expect(fstat(pipe.writeEnd, &status) == 0)
        let matching = "\(status.st_dev):\(status.st_ino)"
        func style(_ variables: [String: String]) -> StandardErrorLogHandler.Style {
            StandardErrorLogHandler.Style(environment: environment(variables), standardError: pipe.writeEnd)
        }
        #expect(style(["JOURNAL_STREAM": matching]) == .journal)
        #expect(style(["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]) == .plain)
        #expect(style(["JOURNAL_STREAM": "garbage"]) == .plain)
        #expect(style([:]) == .plain)
    }
}
