/// A kernel watch descriptor, as returned by `inotify_add_watch(2)`.
///
/// Only meaningful within the one inotify instance owned by ``InotifyThread``.
struct WatchDescriptor: Hashable, Sendable, CustomStringConvertible {
    var rawValue: Int32

    /// The descriptor the kernel puts on `IN_Q_OVERFLOW` events, which belong to no watch.
    static let none = WatchDescriptor(rawValue: -1)

    var description: String { "wd \(rawValue)" }
}
