/// The versions of the protocol, and how client and server agree on one.
public enum ProtocolVersion {
    /// The versions this implementation speaks, lowest first.
    public static let supported: [Int] = [1, 2]

    /// The highest version both sides speak, or `nil` when they have none in common.
    ///
    /// - Complexity: O(*n*) in the number of versions the peer offers.
    public static func negotiate(offered: [Int], supported: [Int] = ProtocolVersion.supported) -> Int? {
        offered.filter(supported.contains).max()
    }
}
