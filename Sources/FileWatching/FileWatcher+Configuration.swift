extension FileWatcher {
    /// How long a file must be quiet before it is announced, how long at most, and how often the
    /// watcher double-checks.
    ///
    /// A file is announced once no event has touched it for the delay belonging to its *latest*
    /// event; every event restarts the wait — but a file that keeps changing is announced anyway
    /// once ``maximumSettleDelay`` has passed since its first change not yet announced. Either way
    /// it is announced only while no writer holds it (an `IN_MODIFY` not yet followed by
    /// `IN_CLOSE_WRITE`; opens that write nothing are readers and do not count), so a
    /// half-written file is never read as a version, however long its writer takes. The defaults
    /// suit editors and scripts on local disks.
    public struct Configuration: Sendable, Hashable {
        /// After `IN_CLOSE_WRITE` or `IN_MOVED_TO`: a writer closed the file or renamed a complete
        /// file into place, so it is most likely done. Default 20 ms.
        public var closeSettleDelay: Duration
        /// After a bare `IN_MODIFY`, `IN_CREATE` or `IN_ATTRIB`: a writer is (or may be) in the
        /// middle of writing — truncate + write in place shows partial content in between — so wait
        /// longer for more writes or the close. Default 250 ms.
        public var modifySettleDelay: Duration
        /// After `IN_DELETE` or `IN_MOVED_FROM`: the file is gone, but many saves bring it back at
        /// once (vim renames the original to `file~` and writes a new file; scripts delete and
        /// recreate), so wait a little before announcing it missing. Default 100 ms.
        public var disappearanceSettleDelay: Duration
        /// The longest a file that keeps changing waits to be announced, counted from its first
        /// change not yet announced (configuration key `settle_max_ms`): announced then, or at the
        /// next moment no writer has it open. Default 1 s.
        public var maximumSettleDelay: Duration
        /// How often a file that a writer keeps open and keeps changing is announced anyway
        /// (``FileWatchEvent/changedWhileWriting(path:since:)``), counted from its first change
        /// not yet announced, for the watches that publish while writing (a log appended to for
        /// good, `publish_while_writing`); and, after lost events, how long a file's `stat` must
        /// stay the same before it counts as closed (configuration key
        /// `settle_while_writing_max_ms`). Default 5 s.
        public var maximumWaitForWriter: Duration
        /// How long a ``CheckedRead`` waits before it marks the read's end, when the read found
        /// the file empty (however it was saved before: the next save may truncate it). A truncation is visible to readers before the kernel
        /// reports it (ext4 frees the blocks first: 1–2 ms measured idle, more while the writer
        /// is held up), and a writer's `IN_OPEN` can merge into the reader's own when it lands
        /// just before it — so an empty read may be a writer's truncation not yet reported; the
        /// wait lets its `IN_MODIFY` arrive. Other reads are marked at once: the truncation that
        /// comes before a writer's bytes is reported before they can be read. Default 250 ms, as
        /// long as the modify settle delay: a writer preempted between its truncation and the
        /// kernel's report of it was seen to hold the report back past 50 ms on a loaded machine
        /// (twelve writers on two cores), and an empty CSV read then was published as an
        /// `invalid` version nobody wrote. Only reads that find the file empty wait.
        public var emptyReadConfirmationDelay: Duration
        /// How often every watched file and directory is `stat`ed to catch what inotify missed
        /// (changes behind a symbolic link, a directory replaced while events were lost) and to
        /// retry directories that could not be watched. Default 5 s.
        public var reconciliationInterval: Duration
        /// How many inotify events may wait for the watcher's task before the inotify thread stops
        /// queueing them and reports an overflow instead (then every file is re-checked), so a
        /// stalled watcher costs bounded memory. Default 16 384, the kernel's default queue size.
        public var maximumPendingEvents: Int

        public init(
            closeSettleDelay: Duration = .milliseconds(20),
            modifySettleDelay: Duration = .milliseconds(250),
            disappearanceSettleDelay: Duration = .milliseconds(100),
            maximumSettleDelay: Duration = .seconds(1),
            maximumWaitForWriter: Duration = .seconds(5),
            emptyReadConfirmationDelay: Duration = .milliseconds(250),
            reconciliationInterval: Duration = .seconds(5),
            maximumPendingEvents: Int = 16_384
        ) {
            self.closeSettleDelay = closeSettleDelay
            self.modifySettleDelay = modifySettleDelay
            self.disappearanceSettleDelay = disappearanceSettleDelay
            self.maximumSettleDelay = maximumSettleDelay
            self.maximumWaitForWriter = maximumWaitForWriter
            self.emptyReadConfirmationDelay = emptyReadConfirmationDelay
            self.reconciliationInterval = reconciliationInterval
            self.maximumPendingEvents = maximumPendingEvents
        }

        /// The settle delay an event with `mask` starts for the file it names.
        func settleDelay(after mask: InotifyEvent.Mask) -> Duration {
            if !mask.isDisjoint(with: [.closeWrite, .movedTo]) {
                return closeSettleDelay
            }
            if !mask.isDisjoint(with: [.delete, .movedFrom]) {
                return disappearanceSettleDelay
            }
            return modifySettleDelay
        }
    }
}
