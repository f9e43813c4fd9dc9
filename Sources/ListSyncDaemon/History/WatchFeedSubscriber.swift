/// Something that reads a ``WatchFeed`` and wants to know when it changed: a connection with a
/// subscription to the watch.
protocol WatchFeedSubscriber: AnyObject, Sendable {
    /// The feed has something new (a changeset, a status). Called on the publisher's thread, with
    /// no lock held; the subscriber hops to its own thread and polls.
    func feedDidChange()
}
