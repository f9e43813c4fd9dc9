import ListSyncProtocol
import Synchronization

/// The file in a watch's state directory that says at which version a protocol version 1 client
/// last subscribed (`EPOCH:SEQ` and a newline), so that the window of version 1 digests survives
/// a restart.
///
/// The changeset lines saved while a version 1 client follows carry `digest_v1`, and a restore
/// whose newest line carries one goes on computing them. But a client that subscribed after the
/// newest saved version (a sink that started, or reconnected, once the last edit was saved) left
/// no line behind: without this mark a restart forgot it, published the next versions without
/// their version 1 digest, and the client, resuming from its cursor, got a snapshot instead of
/// the changesets it lacked.
final class Version1ClientMark: Sendable {
    /// The file's name in the watch's state directory.
    static let fileName = "v1-client"

    /// The file's path.
    let path: String
    private let crashPoints: StateCrashPoints
    /// The newest cursor written, so that a late write never replaces a newer one.
    private let written = Mutex<Cursor?>(nil)

    /// The mark of the watch whose state directory is `directory`.
    init(directory: String, crashPoints: StateCrashPoints) {
        self.path = directory + "/" + Self.fileName
        self.crashPoints = crashPoints
    }

    /// The cursor the file names; `nil` when there is none, or it does not read (a damaged mark
    /// only costs version 1 clients a snapshot, as before it existed).
    func read() -> Cursor? {
        guard let bytes = try? StateFile.read(self.path) else { return nil }
        let cursor = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.flatMap { Cursor(String($0)) }
        self.written.withLock { $0 = cursor }
        return cursor
    }

    /// Records that a version 1 client subscribed while `cursor` was current (atomically
    /// replacing the file); a cursor of the same epoch no newer than the one written is passed
    /// over. Blocking file I/O: call it off the event loops. A failure is passed over too: the
    /// mark only widens what version 1 clients can resume from.
    func note(_ cursor: Cursor) {
        self.written.withLock { written in
            if let written, written.epoch == cursor.epoch, written.seq >= cursor.seq { return }
            guard (try? StateFile.replace(self.path, with: [Array("\(cursor)\n".utf8)], kind: "v1-client", crashPoints: self.crashPoints)) != nil
            else { return }
            written = cursor
        }
    }
}
