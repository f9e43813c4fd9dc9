/// Where the bytes the daemon buffers for clients are counted: the server's
/// ``ClientBufferBudget``. A feed charges it for each snapshot it encodes, once however many
/// subscribers share it, and releases the bytes when the snapshot is let go of.
///
/// A protocol so that `History/` does not depend on `Server/`, whose connections the budget
/// cuts off when it is exceeded.
protocol BufferBudget: AnyObject, Sendable {
    /// Counts `bytes` more; may cut connections off when the total goes over the limit.
    func charge(_ bytes: Int)
    /// Counts `bytes` less.
    func release(_ bytes: Int)
}
