import Glibc
import Logging

/// Everything a running ``FileWatcher`` knows: the watched files and where each is in its settle
/// cycle, the directories it keeps kernel watches on — each watched file's parent, plus the
/// nearest existing ancestor of a parent that is gone — and which watch descriptor is which
/// directory.
///
/// Events are routed by (directory, entry name), never by the file's own inode, so a save that
/// replaces the file (rename over, delete + recreate) is seen like any other write. The registry
/// is owned by ``FileWatcher/run()``'s task and never shared; after every operation
/// ``_checkInvariants()`` holds.
struct WatchRegistry {
    /// Where a watched file is in its settle cycle.
    enum FileState: Hashable {
        /// Something happened to the file: announce it once nothing else happens until `until`.
        /// `announced` is what the last announcement said, `nil` if the path must be announced
        /// whatever its status (first watch, or a new watch of it).
        case settling(until: ContinuousClock.Instant, announced: PathStatus?)
        /// The file was announced as `announced` and nothing has happened since.
        case quiet(announced: PathStatus)

        var announced: PathStatus? {
            switch self {
            case .settling(_, let announced): return announced
            case .quiet(let announced): return announced
            }
        }
    }

    struct WatchedFile {
        let path: WatchedPath
        /// How many ``FileWatcher/watch(_:)`` calls are outstanding; the path is dropped at zero.
        var watchCount: Int
        var state: FileState
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
        /// Entry names of the watched files in this directory.
        var files: Set<String> = []
        /// Absent directories below this one that wait for its events to report their return.
        var waiters: Set<String> = []

        var isUnused: Bool { files.isEmpty && waiters.isEmpty }
    }

    private(set) var files: [String: WatchedFile] = [:]
    private(set) var directories: [String: WatchedDirectory] = [:]
    private(set) var directoriesByDescriptor: [WatchDescriptor: Set<String>] = [:]

    private let configuration: FileWatcher.Configuration
    private let inotify: InotifyThread.Client
    private let output: AsyncStream<FileWatchEvent>.Continuation
    private let logger: Logger

    init(
        configuration: FileWatcher.Configuration,
        inotify: InotifyThread.Client,
        output: AsyncStream<FileWatchEvent>.Continuation,
        logger: Logger
    ) {
        self.configuration = configuration
        self.inotify = inotify
        self.output = output
        self.logger = logger
    }

    /// The earliest moment a settling file is due, if any file is settling. O(*files*).
    var earliestDeadline: ContinuousClock.Instant? {
        files.values.compactMap { file -> ContinuousClock.Instant? in
            guard case .settling(let deadline, _) = file.state else { return nil }
            return deadline
        }.min()
    }

    // MARK: Watching and unwatching

    /// Starts watching `path`, or counts one more watch of it. Either way the path's current
    /// status is announced after the close settle delay, so every subscriber hears it.
    mutating func watch(_ path: WatchedPath, now: ContinuousClock.Instant) async {
        let state = FileState.settling(until: now + configuration.closeSettleDelay, announced: nil)
        if files[path.path] != nil {
            files[path.path]?.watchCount += 1
            files[path.path]?.state = state
            return
        }
        files[path.path] = WatchedFile(path: path, watchCount: 1, state: state)
        if directories[path.directory] != nil {
            directories[path.directory]?.files.insert(path.name)
        } else {
            directories[path.directory] = WatchedDirectory(state: .absent(waitingOn: nil), files: [path.name])
            await establish(path.directory, now: now)
        }
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
        directories[path.directory]?.files.remove(path.name)
        releaseIfUnused(path.directory)
    }

    // MARK: Events

    /// Routes one inotify event: activity on a watched file restarts its settle delay, a
    /// directory appearing under a watched ancestor re-establishes the absent directories that
    /// wait for it, and a directory watch that ends makes its directory absent.
    mutating func handle(_ event: InotifyEvent, now: ContinuousClock.Instant) async {
        if event.mask.contains(.queueOverflow) {
            logger.warning("inotify events were lost; re-checking every watched file and directory")
            for path in files.keys {
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
                touch(WatchedPath.entry(event.name, in: directory), after: configuration.settleDelay(after: event.mask), now: now)
            }
            if !event.mask.isDisjoint(with: [.create, .movedTo]) {
                for waiter in entry.waiters where WatchedPath.childName(of: directory, toward: waiter) == event.name {
                    await establish(waiter, now: now)
                }
            }
        }
    }

    /// Announces every settling file whose deadline has passed: `.changed` if something is at
    /// its path, `.missing` if not — unless it was already announced missing.
    mutating func announceDue(now: ContinuousClock.Instant) {
        for (path, file) in files {
            guard case .settling(let deadline, let announced) = file.state, deadline <= now else { continue }
            let status = PathStatus(ofPath: path)
            files[path]?.state = .quiet(announced: status)
            switch status {
            case .missing:
                if announced != .missing {
                    output.yield(.missing(path: path))
                }
            case .present, .inaccessible:
                output.yield(.changed(path: path))
            }
        }
    }

    // MARK: Reconciliation

    /// The safety net: re-establishes absent directories, replaces watches on directories that
    /// were swapped while events were lost, and re-checks every quiet file whose `stat` differs
    /// from what was announced (a change inotify did not report, e.g. behind a symbolic link).
    mutating func reconcile(now: ContinuousClock.Instant) async {
        await reconcileDirectories(now: now)
        for (path, file) in files {
            guard case .quiet(let announced) = file.state, PathStatus(ofPath: path) != announced else { continue }
            logger.debug("a change inotify did not report", metadata: ["path": "\(path)"])
            touch(path, after: configuration.modifySettleDelay, now: now)
        }
    }

    private mutating func reconcileDirectories(now: ContinuousClock.Instant) async {
        for directory in directories.keys {
            switch directories[directory]?.state {
            case .watched(let descriptor, let fileID):
                if fileID == nil || PathStatus(ofPath: directory).fileID != fileID {
                    logger.info("a watched directory was replaced or removed unnoticed; watching it again", metadata: ["directory": "\(directory)"])
                    await dropWatch(descriptor, releasingKernelWatch: true, now: now)
                }
            case .absent:
                await establish(directory, now: now)
            case nil:
                // Released while an earlier directory was handled.
                break
            }
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
                touch(WatchedPath.entry(name, in: directory), after: configuration.closeSettleDelay, now: now)
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
                touch(WatchedPath.entry(name, in: directory), after: configuration.disappearanceSettleDelay, now: now)
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

    /// Restarts `path`'s settle delay: it is announced once `delay` passes without more activity.
    private mutating func touch(_ path: String, after delay: Duration, now: ContinuousClock.Instant) {
        guard let file = files[path] else { return }
        files[path]?.state = .settling(until: now + delay, announced: file.state.announced)
    }
}
