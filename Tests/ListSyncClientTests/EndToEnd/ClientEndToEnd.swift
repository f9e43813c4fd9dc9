import Testing

/// End-to-end tests: the real `listsyncd`, real files in a scratch directory, a real socket and
/// real `listsync` clients. One at a time — each starts a daemon and several clients, and the
/// machine has two cores.
@Suite(.serialized, .timeLimit(.minutes(3))) enum ClientEndToEnd {}
