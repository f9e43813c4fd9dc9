extension SQLDialect {
    /// The longest identifier PostgreSQL keeps, in bytes (`NAMEDATALEN` − 1): it cuts longer
    /// ones silently, so two long names that share their first 63 bytes would name one table,
    /// column or index.
    static let postgresIdentifierBytes = 63

    /// `name` as the database names the object: as it is in SQLite; in PostgreSQL as it is when
    /// it fits in 63 bytes, else its first 46 bytes (whole characters), `~`, and 16 hex digits
    /// of the 64-bit FNV-1a hash of the whole name — the same every time, so a sink finds its
    /// table and columns again when it resumes, and different for different names.
    func identifier(_ name: String) -> String {
        guard self == .postgres, name.utf8.count > Self.postgresIdentifierBytes else { return name }
        let hash = String(Self.fnv1a(name.utf8), radix: 16)
        let suffix = "~" + String(repeating: "0", count: 16 - hash.count) + hash
        var prefix = ""
        var bytes = 0
        for character in name {
            bytes += character.utf8.count
            if bytes > Self.postgresIdentifierBytes - suffix.utf8.count { break }
            prefix.append(character)
        }
        return prefix + suffix
    }

    /// ``identifier(_:)`` quoted (``quote(_:)``): how every statement names the sink's tables,
    /// columns and indexes.
    func quoted(_ name: String) -> String {
        Self.quote(self.identifier(name))
    }

    /// The 64-bit FNV-1a hash of `bytes`: stable across runs and builds (unlike `Hasher`).
    static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
