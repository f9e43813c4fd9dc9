#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The file `published-before-sync` in a watch's state directory: its state was written by a
/// daemon that publishes versions before they are flushed (`sync_before_publish = false`), under
/// the machine's boot ``bootID``, and that daemon has not yet stopped cleanly (everything
/// flushed, the file removed).
///
/// A daemon killed under the same boot loses nothing (the kernel keeps what was written), so the
/// next start restores the state as always. A mark of *another* boot means the machine stopped
/// while versions may have been published and not flushed: the state may lack them, and the
/// next start begins a new epoch rather than give a cursor to two changesets. So does a mark
/// that says a flush of a published version failed (``syncFailed``), whatever the boot.
///
/// Written atomically and durably (``StateFile/replace(_:with:copying:then:zeroFillingUpTo:kind:crashPoints:)``)
/// before the first version is published unflushed; state without the file (the default, or a
/// build before it) reads as before.
struct PublishedBeforeSyncMark: Sendable, Hashable {
    /// The file's name in the watch's directory.
    static let fileName = "published-before-sync"
    /// The environment variable that stands in for the boot id, for tests.
    static let testBootIDVariable = "LISTSYNCD_TEST_BOOT_ID"
    /// Where Linux gives the boot id: a random UUID drawn at each boot.
    static let bootIDPath = "/proc/sys/kernel/random/boot_id"

    /// The boot id of the machine the daemon that wrote the state ran on.
    var bootID: String
    /// Whether the flush of a version that was already published failed: the state may lack it
    /// even though the machine did not stop.
    var syncFailed = false

    /// The boot id of the running system: `testOverride` when set (tests), else
    /// ``bootIDPath``'s content; `nil` when it cannot be read.
    static func currentBootID(testOverride: String?) -> String? {
        if let testOverride, !testOverride.isEmpty { return testOverride }
        // Read, not sized by `fstat`: a file of /proc says it holds 0 bytes.
        let descriptor = open(self.bootIDPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let id = String(decoding: buffer[..<count], as: UTF8.self).trimmingWhitespace
        return id.isEmpty ? nil : id
    }

    /// The file's bytes: `boot_id <id>` and, after a failed flush, `sync_failed`, one a line.
    var bytes: [UInt8] {
        Array("boot_id \(self.bootID)\n\(self.syncFailed ? "sync_failed\n" : "")".utf8)
    }

    /// Reads the file's bytes.
    ///
    /// - Throws: ``StateDamage/Reason/malformed(_:at:)`` when they are not such a file.
    init(decoding bytes: [UInt8]) throws(StateDamage.Reason) {
        var bootID: String?
        var syncFailed = false
        var offset = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            defer { offset += line.count + 1 }
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("boot_id "), bootID == nil {
                bootID = String(text.dropFirst("boot_id ".count))
            } else if text == "sync_failed" {
                syncFailed = true
            } else if !text.isEmpty {
                throw .malformed("not a mark of state published before it was flushed", at: offset)
            }
        }
        guard let bootID, !bootID.isEmpty else { throw .malformed("no boot_id", at: 0) }
        self.bootID = bootID
        self.syncFailed = syncFailed
    }

    init(bootID: String, syncFailed: Bool = false) {
        self.bootID = bootID
        self.syncFailed = syncFailed
    }

    /// Why state with this mark cannot be trusted by a daemon under boot `current`; `nil` when
    /// it can (the same boot, every flush done or still in the page cache).
    func distrust(under current: String?) -> String? {
        if self.syncFailed {
            return "a flush of a version published before it was durable failed; versions published before they were durable may be lost"
        }
        guard current == self.bootID else {
            return "the machine stopped without listsyncd stopping cleanly; versions published before they were durable may be lost"
        }
        return nil
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line ends.
    fileprivate var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
