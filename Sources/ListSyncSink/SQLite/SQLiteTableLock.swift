import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// The lock a SQLite sink holds on its table for as long as it runs: `flock` on a side file next
/// to the database, `DATABASE.listsync-lock-TABLE` (``resolved(_:)``: the database's real path,
/// so that a symbolic link or another spelling of the same file finds the same lock), holding the process id and watch of the sink
/// that has it (what a second sink's refusal names). The kernel releases it when the process
/// ends, however it ends; the file stays.
final class SQLiteTableLock {
    /// The side file.
    var path: String { self.lock.path }
    private let lock: HolderLock

    /// Takes the lock on `table` of the database file `database` for the sink of `watch`.
    ///
    /// - Throws: ``SinkError/refused(_:)`` when another sink holds it, naming that sink;
    ///   ``SinkError/database(_:)`` when the side file cannot be made.
    init(database: String, table: String, watch: String) throws(SinkError) {
        let path = Self.resolved(database) + ".listsync-lock-" + Self.fileName(table)
        do {
            self.lock = try HolderLock(path: path, holder: "pid \(getpid()), watch \(watch)")
        } catch {
            switch error {
            case .held(let holder):
                let who = holder.map { "the sink \($0)" } ?? "another sink"
                throw .refused("the table \"\(table)\" in \(database) is held by \(who) (lock \(path)); one sink per table")
            case .failed(let failure) where failure.call == "open":
                throw .database("\(path): cannot open the table's lock file: \(failure.reason) (errno \(failure.code))")
            case .failed(let failure):
                throw .database("\(path): cannot lock: \(failure.reason) (errno \(failure.code))")
            }
        }
    }

    /// The database file's real path (`realpath`: symbolic links followed, `.` and `..` gone);
    /// for a database not made yet, its directory's real path and its name; as given when
    /// neither resolves (then opening the database fails and says why).
    static func resolved(_ database: String) -> String {
        if let real = realpath(database, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let slash = database.lastIndex(of: "/")
        let directory = slash.map { $0 == database.startIndex ? "/" : String(database[..<$0]) } ?? "."
        let name = slash.map { String(database[database.index(after: $0)...]) } ?? database
        guard !name.isEmpty, let real = realpath(directory, nil) else { return database }
        defer { free(real) }
        let resolved = String(cString: real)
        return (resolved.hasSuffix("/") ? resolved : resolved + "/") + name
    }

    /// The table's name as part of a file name: ASCII letters and digits, `_`, `-` and `.` as
    /// they are (letters in lower case: SQLite's names ignore ASCII case), any other byte `%XX`;
    /// beyond 160 bytes, cut and followed by a hash of the whole name.
    static func fileName(_ table: String) -> String {
        var name = ""
        // ASCII letters only, as SQLite folds them.
        let folded = table.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }
        for byte in folded {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                name += "%" + (hex.count < 2 ? "0" : "") + hex
            }
        }
        guard name.utf8.count > 160 else { return name }
        return String(name.prefix(140)) + "~" + String(SQLDialect.fnv1a(folded), radix: 16)
    }
}
