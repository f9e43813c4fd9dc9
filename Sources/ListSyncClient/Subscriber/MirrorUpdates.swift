/// The updates of one subscription, in order: an `AsyncSequence` that ends when the subscription
/// does — throwing the ``ClientError`` that ended it, or ``ClientError/cancelled``.
///
/// Made by ``ListSyncClient/withMirror(of:since:_:)`` and ``ListSyncClient/withMirror(resuming:_:)``;
/// iterate it once. The subscriber reads the
/// next message from the daemon only when the next update is asked for.
public struct MirrorUpdates: AsyncSequence, Sendable {
    public typealias Element = MirrorUpdate
    public typealias Failure = ClientError

    let handoff: UpdateHandoff<MirrorUpdate>

    /// The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handoff: self.handoff)
    }

    /// Gives the updates one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let handoff: UpdateHandoff<MirrorUpdate>

        /// The next update; `nil` once the subscription ended on request.
        public mutating func next() async throws(ClientError) -> MirrorUpdate? {
            try await self.handoff.next()
        }

        /// The next update; `nil` once the subscription ended on request.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ClientError) -> MirrorUpdate? {
            try await self.handoff.next()
        }
    }
}
