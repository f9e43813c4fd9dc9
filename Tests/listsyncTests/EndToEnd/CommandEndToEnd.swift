import Testing

/// The commands end to end: the real `listsyncd`, real files in a scratch directory, a real
/// socket and the real `listsync` subscribe, mirror, exec, snapshot and list. One at a time —
/// each starts a daemon and several clients, and the machine has two cores.
@Suite(.serialized, .timeLimit(.minutes(3))) enum CommandEndToEnd {}
