extension MirroredList {
    /// Checks, in debug builds, what must hold after every change to the mirror: a linear list is
    /// one section with model `null`; the list has exactly the digest it was verified with; an
    /// incomplete snapshot has received at least its first chunk. Does nothing in release builds.
    ///
    /// - Complexity: O(*n*) in debug builds, for the digest.
    public func _checkInvariants() {
        #if DEBUG
        if case .list(let content) = self.basis {
            if !content.sectioned {
                precondition(content.sections.count == 1, "a linear list is one section, not \(content.sections.count)")
                precondition(content.sections[0].model.model == .null, "the section of a linear list has model null")
            }
            precondition(
                MirrorContent.digest(schema: content.schema, sections: content.sections, version: content.digestVersion) == content.digest,
                "the list at \(content.cursor) lost its verified digest")
        }
        if let pending = self.pendingSnapshot {
            precondition(pending.nextChunk > 0, "an incomplete snapshot has at least its first chunk")
        }
        #endif
    }
}
