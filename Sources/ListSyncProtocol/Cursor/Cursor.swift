/// A position in one watch's history: `"<epoch>:<seq>"` on the wire.
///
/// `seq` counts the versions of a watch: the first version the server loads is 0, and every
/// changeset publishes `seq + 1`. A client's cursor is the cursor of the last snapshot or
/// changeset it applied; subscribing with it as `since` resumes exactly after it when the server
/// still has the changesets (same ``epoch``, recent enough), and sends a snapshot otherwise.
public struct Cursor: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The server history the position belongs to.
    public var epoch: Epoch
    /// The version of the watch.
    public var seq: UInt64

    /// A cursor at version `seq` of history `epoch`.
    public init(epoch: Epoch, seq: UInt64) {
        self.epoch = epoch
        self.seq = seq
    }

    /// Parses `"<16 hex digits>:<decimal seq>"`; `nil` for anything else (no sign, no spaces,
    /// no leading zeros beyond `0` itself).
    public init?(_ description: String) {
        let parts = description.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let epoch = Epoch(hexDigits: parts[0]) else { return nil }
        let digits = parts[1].utf8
        guard !digits.isEmpty, digits.count <= 20,
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            digits.count == 1 || digits.first != UInt8(ascii: "0"),
            let seq = UInt64(parts[1])
        else { return nil }
        self.init(epoch: epoch, seq: seq)
    }

    /// `"<epoch>:<seq>"`.
    public var description: String {
        "\(self.epoch):\(self.seq)"
    }
}
