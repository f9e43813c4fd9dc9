extension ListRecord {
    /// The same record `delta` bytes further in the file: what a record of a chunk the
    /// ``IncrementalListReader`` kept becomes after bytes before it were inserted or removed, and
    /// what a run's shift makes of its stored records (the daemon's records file writes them so).
    public func moved(by delta: Int) -> ListRecord {
        ListRecord(
            start: byteOffset + delta, end: byteOffset + delta + Int(length), identity: differenceIdentifier,
            content: contentHash)
    }
}
