extension WatchConfiguration.Field {
    /// The settings whose change across a restart starts a new epoch: the state kept for the
    /// watch describes another file or other records. (A reload keeps the epoch for a new path,
    /// which it diffs at once; across a restart the file at the new path may be anything.)
    static let persistentIdentities: Set<Self> = Self.identities.union([.path])
}
