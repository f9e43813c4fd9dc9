import Glibc
import Logging

/// Everything a running ``FileWatcher`` knows: the watched files and where each is in its settle
/// cycle, the directories it keeps kernel watches on — each watched file's parent, plus the
/// nearest existing ancestor of a parent that is gone — and which watch descriptor is which
/// directory.
///
/// Events are routed by (directory, entry name), never by the file's own inode, so a save that
/// replaces the file (rename over, delete + recreate) is seen like any other write. A file whose
/// path goes through symbolic links also has *aliases* (``SymbolicLinkChain``): the links'
/// entries and the resolved file's, routed to it the same way. The registry
/// is owned by ``FileWatcher/run()``'s task and never shared; after every operation
/// ``_checkInvariants()`` holds.
struct WatchRegistry {
    /// Where a watched file is in its settle cycle.
    enum FileState: Hashable {
        /// Something happened to the file since `since` (its first change not yet announced):
        /// announce it once nothing else happens until `until` — or, if it keeps changing, once the
        /// configuration's maximum has passed since `since` (``WatchedFile/dueTime(_:)``).
        /// `announced` is what the last announcement said, `nil` if the path must be announced
        /// whatever its status (first watch, or a new watch of it).
        case settling(since: ContinuousClock.Instant, until: ContinuousClock.Instant, announced: PathStatus?)
        /// The file was announced as `announced` and nothing has happened since.
        case quiet(announced: PathStatus)

        var announced: PathStatus? {
            switch self {
            case .settling(_, _, let announced): return announced
            case .quiet(let announced): return announced
            }
        }
    }

    /// An announcement made with a ``CompletenessCheck``.
    struct CheckedAnnouncement: Hashable {
        /// The file's ``WatchedFile/generation`` when it was announced.
        var generation: UInt64
        /// The announced settle cycle's `since`.
        var since: ContinuousClock.Instant
    }

    struct WatchedFile {
        let path: WatchedPath
        /// How many ``FileWatcher/watch(_:)`` calls are outstanding; the path is dropped at zero.
        var watchCount: Int
        var state: FileState
        /// How many events changed the file; a ``CompletenessCheck`` passes only if it has not
        /// moved since the announcement.
        var generation: UInt64 = 0
        /// `IN_OPEN`s not yet matched by an `IN_CLOSE_WRITE` or `IN_CLOSE_NOWRITE`: readers
        /// (`tail -f`, a viewer) and writers alike, since inotify does not say an open's mode.
        /// They never hold an announcement back (only a ``writer`` does); a read is judged
        /// complete only if nobody opened the file during it and still has it open
        /// (``confirm(_:announcedAt:readStartedAt:now:)``).
        var openCount = 0
        /// Whether a writer holds the file open (an `IN_MODIFY` not yet followed by
        /// `IN_CLOSE_WRITE`), or may since events were lost.
        var writer = WriterState.none

        /// The symbolic links on the path and the file it resolves to, watched as its aliases.
        var links = SymbolicLinkChain(aliases: [])
        /// The last announcement, if it had a check. It stays until the next one, however many
        /// of its reads were judged: one path may have several readers (watches that follow one
        /// file), and each read refused must lead to a later one, even after another passed.
        var checkedAnnouncement: CheckedAnnouncement?
        /// When a check failed (a writer was at the file during the read): the `since` of the
        /// refused announcement, until the next one. The maximum settle delay counts from it, so a
        /// file that keeps changing is not held back longer than the maximum by refused reads. The
        /// wait for a writer does not: it counts from the writer's own first change, so a writer
        /// that began after the announcement gets its full wait however late the read came.
        var refusedSince: ContinuousClock.Instant?
        /// When the file last changed (its last event, or a change a reconciliation found): where
        /// the publication latency the daemon measures starts, settling included.
        var lastChange: ContinuousClock.Instant?

        /// When the file is due to be announced, if it is settling: when it has been quiet for its
        /// delay or the maximum settle delay has passed (since its first change, or a refused
        /// announcement's, ``refusedSince``). While a writer holds it, it is due only to be
        /// announced as being written — once the writer has held it for the modify settle delay
        /// and the file would otherwise have settled, so a quick save never is — and then, for
        /// the watches that publish while writing, once the writer bound has passed since its
        /// first change not yet announced. After lost events, once its `stat` has stayed the same
        /// for the writer bound.
        func dueTime(_ configuration: FileWatcher.Configuration) -> ContinuousClock.Instant? {
            guard case .settling(let since, let until, _) = state else { return nil }
            let settled = min(until, min(since, refusedSince ?? since) + configuration.maximumSettleDelay)
            switch writer {
            case .none:
                return settled
            case .writing(let writerSince, let announced):
                let bound = since + configuration.maximumWaitForWriter
                return announced ? bound : min(bound, max(settled, writerSince + configuration.modifySettleDelay))
            case .unknown(_, let stableSince):
                return stableSince + configuration.maximumWaitForWriter
            }
        }
    }

    /// Whether a directory the registry needs is watched in the kernel.
    enum DirectoryState: Hashable {
        /// Watched under `descriptor`. `fileID` is the directory's inode when the watch was set
        /// (`nil` if it vanished at once), so reconciliation notices a directory replaced while
        /// its events were lost.
        case watched(WatchDescriptor, fileID: FileID?)
        /// Missing or not watchable. Its return is reported by the events of `waitingOn`, its
        /// nearest watched ancestor (`nil`: no ancestor could be watched; reconciliation retries).
        case absent(waitingOn: String?)
    }

    struct WatchedDirectory {
        var state: DirectoryState
        /// Entry names of the watched files and aliases in this directory.
        var files: Set<String> = []
        /// Absent directories below this one that wait for its events to report their return.
        var waiters: Set<String> = []

        var isUnused: Bool { files.isEmpty && waiters.isEmpty }
    }

    private(set) var files: [String: WatchedFile] = [:]
    /// The watched files each alias path stands for.
    private(set) var aliases: [String: Set<String>] = [:]
    private(set) var directories: [String: WatchedDirectory] = [:]
    private(set) var directoriesByDescriptor: [WatchDescriptor: Set<String>] = [:]
    /// The unwatched entries of watched directories, for renames that need no settle delay.
    private var renameSources = RenameSources()

    private let configuration: FileWatcher.Configuration
    private let inotify: InotifyThread.Client
    private let output: AsyncStream<FileWatchEvent>.Continuation
    /// Where the ``CompletenessCheck``s of announcements send their confirmations.
    private let confirmations: ReadConfirmations
    private let logger: Logger

    init(
        configuration: FileWatcher.Configuration,
        inotify: InotifyThread.Client,
        output: AsyncStream<FileWatchEvent>.Continuation,
        confirmations: ReadConfirmations,
        logger: Logger
    ) {
        self.configuration = configuration
        self.inotify = inotify
        self.output = output
        self.confirmations = confirmations
        self.logger = logger
    }

    /// The earliest moment a settling file is due, if any file is settling. O(*files*).
    var earliestDeadline: ContinuousClock.Instant? {
        files.values.compactMap { $0.dueTime(configuration) }.min()
    }

    // MARK: Watching and unwatching

    /// Starts watching `path`, or counts one more watch of it. Either way the path's current
    /// status is announced after the close settle delay, so every subscriber hears it.
    mutating func watch(_ path: WatchedPath, now: ContinuousClock.Instant) async {
        let state = FileState.settling(since: now, until: now + configuration.closeSettleDelay, announced: nil)
        if files[path.path] != nil {
            files[path.path]?.watchCount += 1
            files[path.path]?.state = state
            files[path.path]?.generation += 1
            return
        }
        files[path.path] = WatchedFile(path: path, watchCount: 1, state: state)
        await addEntry(path, now: now)
        await resolveLinks(of: path.path, now: now)
    }

    /// Drops one watch of `path`; at the last one the file is forgotten and directories nobody
    /// needs any more lose their kernel watches.
    mutating func unwatch(_ path: WatchedPath) {
        guard let file = files[path.path] else { return }
        guard file.watchCount == 1 else {
            files[path.path]?.watchCount -= 1
            return
        }
        files[path.path] = nil
        for alias in file.links.aliases {
            removeAlias(alias, of: path.path)
        }
        removeEntry(path)
    }

    /// Lists `path`'s name in its directory, establishing the directory if it is new.
    private mutating func addEntry(_ path: WatchedPath, now: ContinuousClock.Instant) async {
        if directories[path.directory] != nil {
            directories[path.directory]?.files.insert(path.name)
        } else {
            directories[path.directory] = WatchedDirectory(state: .absent(waitingOn: nil), files: [path.name])
            await establish(path.directory, now: now)
        }
    }

    /// Drops `path`'s name from its directory once neither a watched file nor an alias has it.
    private mutating func removeEntry(_ path: WatchedPath) {
        guard files[path.path] == nil, aliases[path.path] == nil else { return }
        directories[path.directory]?.files.remove(path.name)
        releaseIfUnused(path.directory)
    }

    /// The watched files an entry's events concern: the file at `path` and those it is an alias of.
    private func targets(ofEntry path: String) -> [String] {
        (files[path] == nil ? [] : [path]) + (aliases[path] ?? [])
    }

    // MARK: Symbolic links

    /// Resolves the symbolic links on `file`'s path again and watches the aliases that changed;
    /// when the chain changed, the file is re-checked (the link now leads elsewhere) and its
    /// directory re-established if a link on the way now names another one.
    private mutating func resolveLinks(of file: String, now: ContinuousClock.Instant) async {
        guard let watched = files[file] else { return }
        let chain = SymbolicLinkChain(resolving: file)
        guard chain != watched.links else { return }
        files[file]?.links = chain
        for alias in watched.links.aliases where !chain.aliases.contains(alias) {
            removeAlias(alias, of: file)
        }
        for alias in chain.aliases where !watched.links.aliases.contains(alias) {
            aliases[alias, default: []].insert(file)
            if let path = try? WatchedPath(alias) {
                await addEntry(path, now: now)
            }
        }
        logger.debug("symbolic links on the path resolved", metadata: ["path": "\(file)", "aliases": "\(chain.aliases)"])
        await reconcile(watched.path.directory, now: now)
        touch(file, after: configuration.closeSettleDelay, now: now)
    }

    private mutating func removeAlias(_ alias: String, of file: String) {
        aliases[alias]?.remove(file)
        if aliases[alias]?.isEmpty == true {
            aliases[alias] = nil
        }
        if let path = try? WatchedPath(alias) {
            removeEntry(path)
        }
    }

    // MARK: Events

    /// Routes one inotify event: activity on a watched file restarts its settle delay, a
    /// directory appearing under a watched ancestor re-establishes the absent directories that
    /// wait for it, and a directory watch that ends makes its directory absent.
    mutating func handle(_ event: InotifyEvent, now: ContinuousClock.Instant) async {
        if event.mask.contains(.queueOverflow) {
            logger.warning("inotify events were lost; re-checking every watched file and directory")
            for path in files.keys {
                restartWriterTracking(of: path, now: now)
                touch(path, after: configuration.closeSettleDelay, now: now)
            }
            await reconcileDirectories(now: now)
            return
        }
        // Unknown descriptors belong to watches already dropped (their IN_IGNORED, late events).
        guard let watchedDirectories = directoriesByDescriptor[event.descriptor] else { return }
        guard !event.name.isEmpty else {
            if event.mask.contains(.ignored) {
                await dropWatch(event.descriptor, releasingKernelWatch: false, now: now)
            } else if event.mask.contains(.moveSelf) {
                // The kernel watch follows the moved directory; our path no longer names it.
                await dropWatch(event.descriptor, releasingKernelWatch: true, now: now)
            }
            // IN_DELETE_SELF and IN_UNMOUNT are followed by IN_IGNORED.
            return
        }
        for directory in watchedDirectories {
            guard let entry = directories[directory] else { continue }
            if entry.files.contains(event.name) {
                let path = WatchedPath.entry(event.name, in: directory)
                // A complete file renamed over the watched one is a whole version at once.
                let isCompleteRename =
                    event.mask.contains(.movedTo) && renameSources.isCompleteRename(into: directory, cookie: event.cookie)
                for file in targets(ofEntry: path) {
                    noteOpens(of: file, after: event.mask, now: now)
                    guard !event.mask.isDisjoint(with: .changes) else { continue }
                    touch(file, after: isCompleteRename ? .zero : configuration.settleDelay(after: event.mask), now: now)
                    if !event.mask.isDisjoint(with: [.create, .movedTo, .delete, .movedFrom]) {
                        // The entry was replaced: it may be, or have been, a link.
                        await resolveLinks(of: file, now: now)
                    }
                }
            } else {
                renameSources.note(event.mask, name: event.name, in: directory, cookie: event.cookie)
            }
            if !event.mask.isDisjoint(with: [.create, .movedTo]) {
                for waiter in entry.waiters where WatchedPath.childName(of: directory, toward: waiter) == event.name {
                    await establish(waiter, now: now)
                }
            }
        }
    }

    /// Announces every settling file that is due (``WatchedFile/dueTime(_:)``): `.missing` if
    /// nothing is at its path (unless it was already announced missing); while a writer holds it,
    /// `.writing` once and `.changedWhileWriting` at the writer bound; else `.changed` with a
    /// ``CompletenessCheck``. After lost events, a file whose `stat` moved since it was last
    /// looked at waits for the writer bound again.
    mutating func announceDue(now: ContinuousClock.Instant) {
        for (path, file) in files {
            guard let due = file.dueTime(configuration), due <= now,
                  case .settling(let since, _, let announced) = file.state
            else { continue }
            let status = PathStatus(ofPath: path)
            switch file.writer {
            case .writing(let writerSince, announced: false) where now < since + configuration.maximumWaitForWriter && status != .missing:
                files[path]?.writer = .writing(since: writerSince, announced: true)
                output.yield(.writing(path: path, since: writerSince))
                continue
            case .unknown(let observed, _) where observed != status:
                files[path]?.writer = .unknown(observed: status, stableSince: now)
                continue
            case .unknown:
                logger.debug("unchanged for the writer bound after lost events: taken as closed", metadata: ["path": "\(path)"])
                files[path]?.writer = .none
            case .none, .writing:
                break
            }
            files[path]?.state = .quiet(announced: status)
            files[path]?.refusedSince = nil
            files[path]?.checkedAnnouncement = nil
            switch status {
            case .missing:
                if announced != .missing {
                    output.yield(.missing(path: path))
                }
            case .present, .inaccessible:
                if case .writing(let writerSince, _) = file.writer {
                    logger.debug("announcing a file that a writer still holds open", metadata: ["path": "\(path)"])
                    files[path]?.writer = .writing(since: writerSince, announced: true)
                    output.yield(.changedWhileWriting(path: path, since: writerSince))
                } else {
                    files[path]?.checkedAnnouncement = CheckedAnnouncement(generation: file.generation, since: min(since, file.refusedSince ?? since))
                    let check = CompletenessCheck(
                        confirmations: confirmations, path: path, generation: file.generation,
                        emptyReadDelay: configuration.emptyReadConfirmationDelay, lastChange: file.lastChange ?? now)
                    output.yield(.changed(path: path, check: check))
                }
            }
        }
    }

    /// What a read's start tells its judging: the file's generation, and how many had it open.
    struct ReadStart: Hashable {
        var generation: UInt64
        var openCount: Int
    }

    /// The file's generation and open count if no writer holds it now, `nil` if someone may be
    /// writing it (or it is not watched): taken when a read's start barrier has passed, for
    /// ``confirm(_:announcedAt:readStartedAt:now:)``.
    func readStart(of path: String) -> ReadStart? {
        guard let file = files[path], !file.writer.mayBeWritten else { return nil }
        return ReadStart(generation: file.generation, openCount: file.openCount)
    }

    /// Judges a read prompted by the announcement at generation `announced`, once every event
    /// queued before its end has been handled: it saw a complete version if no writer held the
    /// file when it began (`start`, ``readStart(of:)``), no event changed the file since, no
    /// writer holds it now, and nobody who opened it during the read still has it open (the
    /// read's own open and close have passed). Readers that had it open before — `tail -f` — do
    /// not count: they write nothing. One that opened during the read might be a writer that has
    /// not written yet, about to overwrite the file in place without truncating it; a writer that
    /// truncates shows its `IN_MODIFY` before any byte it writes can be read. (A writer that
    /// opened before the read and overwrites in place without truncating during it cannot be
    /// told from a reader until its write returns; the file is then announced again.)
    ///
    /// When a read of the last announcement is refused, the file settles again — also
    /// when another read of it passed: that reader's version does not reach this one's reader —
    /// its maximum settle delay counted from the announcement's start
    /// (``WatchedFile/refusedSince``): it is announced once complete, or at the bounds.
    mutating func confirm(_ path: String, announcedAt announced: UInt64, readStartedAt start: ReadStart?, now: ContinuousClock.Instant) -> Bool {
        guard let file = files[path] else { return false }
        if let start, file.generation == start.generation, !file.writer.mayBeWritten, file.openCount <= start.openCount {
            return true
        }
        // A read of an older announcement: every reader reads the newer one after it.
        guard let last = file.checkedAnnouncement, last.generation == announced else { return false }
        files[path]?.refusedSince = last.since
        if case .quiet(let announced) = file.state {
            // Only opened since: nothing else will announce it again.
            let until = now + configuration.closeSettleDelay
            files[path]?.state = .settling(since: now, until: until, announced: announced)
        }
        return false
    }

    // MARK: Reconciliation

    /// The safety net: re-establishes absent directories, replaces watches on directories that
    /// were swapped while events were lost, and re-checks every quiet file whose `stat` differs
    /// from what was announced (a change inotify did not report, e.g. behind a symbolic link).
    mutating func reconcile(now: ContinuousClock.Instant) async {
        await reconcileDirectories(now: now)
        for path in files.keys {
            await resolveLinks(of: path, now: now)
        }
        for (path, file) in files {
            guard case .quiet(let announced) = file.state, PathStatus(ofPath: path) != announced else { continue }
            logger.debug("a change inotify did not report", metadata: ["path": "\(path)"])
            touch(path, after: configuration.modifySettleDelay, now: now)
        }
    }

    private mutating func reconcileDirectories(now: ContinuousClock.Instant) async {
        for directory in directories.keys {
            await reconcile(directory, now: now)
        }
    }

    /// Watches `directory` again if its watch no longer watches what its path names (replaced,
    /// removed, or reached through a symbolic link that changed), or establishes it if absent.
    private mutating func reconcile(_ directory: String, now: ContinuousClock.Instant) async {
        switch directories[directory]?.state {
        case .watched(let descriptor, let fileID):
            if fileID == nil || PathStatus(ofPath: directory).fileID != fileID {
                logger.info("a watched directory was replaced or removed; watching it again", metadata: ["directory": "\(directory)"])
                await dropWatch(descriptor, releasingKernelWatch: true, now: now)
            }
        case .absent:
            await establish(directory, now: now)
        case nil:
            // Released while an earlier directory was handled.
            break
        }
    }

    // MARK: Directory watches

    /// Puts a kernel watch on `directory` if it is absent. When it can't be watched (it, or a
    /// directory on the way, is missing), watches its nearest existing ancestor instead, whose
    /// events report its return — then checks once more whether it came back before that watch
    /// was set. Bounded: what is still missing after a few rounds waits for reconciliation.
    private mutating func establish(_ directory: String, now: ContinuousClock.Instant) async {
        for _ in 0..<3 {
            guard case .absent = directories[directory]?.state else { return }
            switch await inotify.addWatch(directory: directory) {
            case .success(let descriptor):
                setWatched(directory, descriptor: descriptor, now: now)
                return
            case .failure(let error):
                if error.code == ENOENT || error.code == ENOTDIR {
                    logger.debug("directory is missing; waiting for it to appear", metadata: ["directory": "\(directory)"])
                } else {
                    logger.warning("cannot watch directory", metadata: ["directory": "\(directory)", "error": "\(error)"])
                }
                let ancestor = await watchNearestAncestor(of: directory)
                setAbsent(directory, waitingOn: ancestor)
                guard let ancestor, let child = WatchedPath.childName(of: ancestor, toward: directory),
                      PathStatus(ofPath: WatchedPath.entry(child, in: ancestor)) != .missing
                else { return }
            }
        }
    }

    /// The nearest ancestor of `directory` that is watched, or that can be watched now.
    private mutating func watchNearestAncestor(of directory: String) async -> String? {
        var candidate = WatchedPath.parent(of: directory)
        while let ancestor = candidate {
            if let entry = directories[ancestor] {
                if case .watched = entry.state {
                    return ancestor
                }
            } else if case .success(let descriptor) = await inotify.addWatch(directory: ancestor) {
                directories[ancestor] = WatchedDirectory(state: .absent(waitingOn: nil))
                setWatched(ancestor, descriptor: descriptor, now: nil)
                return ancestor
            }
            candidate = WatchedPath.parent(of: ancestor)
        }
        return nil
    }

    /// Records `directory` as watched under `descriptor` and, when `now` is given, re-checks its
    /// files: a directory that (re)appears may already hold them.
    private mutating func setWatched(_ directory: String, descriptor: WatchDescriptor, now: ContinuousClock.Instant?) {
        guard case .absent(let ancestor) = directories[directory]?.state else {
            preconditionFailure("\(directory) was watched twice")
        }
        directories[directory]?.state = .watched(descriptor, fileID: PathStatus(ofPath: directory).fileID)
        directoriesByDescriptor[descriptor, default: []].insert(directory)
        if let ancestor {
            stopWaiting(directory, on: ancestor)
        }
        if let now {
            for name in directories[directory]?.files ?? [] {
                for file in targets(ofEntry: WatchedPath.entry(name, in: directory)) {
                    touch(file, after: configuration.closeSettleDelay, now: now)
                }
            }
        }
    }

    /// Records `directory` as absent, waiting on `ancestor`.
    private mutating func setAbsent(_ directory: String, waitingOn ancestor: String?) {
        guard case .absent(let previous) = directories[directory]?.state, previous != ancestor else { return }
        if let ancestor {
            directories[ancestor]?.waiters.insert(directory)
        }
        directories[directory]?.state = .absent(waitingOn: ancestor)
        if let previous {
            stopWaiting(directory, on: previous)
        }
    }

    private mutating func stopWaiting(_ directory: String, on ancestor: String) {
        directories[ancestor]?.waiters.remove(directory)
        releaseIfUnused(ancestor)
    }

    /// The kernel watch `descriptor` ended (`IN_IGNORED`), or no longer watches the directory
    /// its path names (moved, replaced; then `releasingKernelWatch` removes it). Its directories
    /// become absent and their files are re-checked; directories that waited on them look for
    /// another ancestor, and the directories themselves are re-established if files need them.
    private mutating func dropWatch(_ descriptor: WatchDescriptor, releasingKernelWatch: Bool, now: ContinuousClock.Instant) async {
        let affected = directoriesByDescriptor.removeValue(forKey: descriptor) ?? []
        for directory in affected {
            if releasingKernelWatch {
                inotify.removeWatch(descriptor)
            }
            directories[directory]?.state = .absent(waitingOn: nil)
            for name in directories[directory]?.files ?? [] {
                for file in targets(ofEntry: WatchedPath.entry(name, in: directory)) {
                    // Its events are lost from here on, closes among them.
                    forgetOpens(of: file)
                    touch(file, after: configuration.disappearanceSettleDelay, now: now)
                }
            }
        }
        for directory in affected {
            for waiter in directories[directory]?.waiters ?? [] {
                await establish(waiter, now: now)
            }
            if directories[directory]?.files.isEmpty == false {
                await establish(directory, now: now)
            } else {
                releaseIfUnused(directory)
            }
        }
    }

    /// Forgets `directory` when no file and no waiter needs it, removing its kernel watch or
    /// releasing the ancestor it waited on.
    private mutating func releaseIfUnused(_ directory: String) {
        guard let entry = directories[directory], entry.isUnused else { return }
        directories[directory] = nil
        switch entry.state {
        case .watched(let descriptor, _):
            directoriesByDescriptor[descriptor]?.remove(directory)
            if directoriesByDescriptor[descriptor]?.isEmpty == true {
                directoriesByDescriptor[descriptor] = nil
            }
            inotify.removeWatch(descriptor)
        case .absent(let ancestor?):
            stopWaiting(directory, on: ancestor)
        case .absent(nil):
            break
        }
    }

    /// Restarts `path`'s settle delay: it is announced once `delay` passes without more activity
    /// (or the maximum passes since its settling began).
    private mutating func touch(_ path: String, after delay: Duration, now: ContinuousClock.Instant) {
        guard let file = files[path] else { return }
        let since: ContinuousClock.Instant
        if case .settling(let settlingSince, _, _) = file.state {
            since = settlingSince
        } else {
            since = now
        }
        files[path]?.state = .settling(since: since, until: now + delay, announced: file.state.announced)
        files[path]?.generation += 1
        files[path]?.lastChange = now
    }

    /// Follows who has watched file `path` open and who writes it, from an event about its
    /// entry (or an alias's).
    private mutating func noteOpens(of path: String, after mask: InotifyEvent.Mask, now: ContinuousClock.Instant) {
        guard files[path] != nil else { return }
        if !mask.isDisjoint(with: [.movedTo, .movedFrom, .delete]) {
            files[path]?.openCount = 0
        }
        if mask.contains(.open) {
            files[path]?.openCount += 1
        }
        if !mask.isDisjoint(with: [.closeWrite, .closeNoWrite]) {
            // A close of a file opened before the watch began matches no open.
            let openCount = files[path]?.openCount ?? 0
            files[path]?.openCount = max(0, openCount - 1)
        }
        files[path]?.writer.note(mask, now: now)
    }

    /// Forgets who has `path` open: another file is at the path now (its directory watch ended).
    private mutating func forgetOpens(of path: String) {
        files[path]?.openCount = 0
        files[path]?.writer = .none
    }

    /// After lost events: who has `path` open is unknown, and whether a writer holds it. A file
    /// whose `stat` is what was last announced has not been written since (no writer holds it
    /// back); one that changed counts as written until its `stat` stays the same for the writer
    /// bound, or inotify shows its writer closing.
    private mutating func restartWriterTracking(of path: String, now: ContinuousClock.Instant) {
        guard let file = files[path] else { return }
        files[path]?.openCount = 0
        let status = PathStatus(ofPath: path)
        if case .quiet(let announced) = file.state, announced == status, !file.writer.mayBeWritten {
            files[path]?.writer = .none
        } else if status == .missing {
            files[path]?.writer = .none
        } else {
            files[path]?.writer = .unknown(observed: status, stableSince: now)
        }
    }
}
