import Testing

/// The commands end to end: the real `listsyncd`, real files in a scratch directory, a real
/// socket and the real `listsync` subscribe, mirror, exec, snapshot and list. One at a time —
/// each starts a daemon and several clients, and the machine has two cores.
@Suite(.serialized, .timeLimit(.minutes(3))) enum CommandEndToEnd {}

/// `listsync exec` end to end, one at a time as ``CommandEndToEnd`` but beside it: its tests (a
/// 50 MB changeset among them) take as long as all the other command tests together, and one
/// chain of both would be the longest wait of the whole run. Its limit is a hang's, with room
/// for the 50 MB changeset on a loaded machine (3.5 min seen with a build beside the run).
@Suite(.serialized, .timeLimit(.minutes(6))) enum ExecEndToEnd {}
