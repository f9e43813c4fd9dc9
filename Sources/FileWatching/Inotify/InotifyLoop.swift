import CInotifyTools
import DurableFiles
import Glibc
import Logging

/// The body of the inotify thread: it owns libinotifytools' state, the wake-up and marker pipes
/// and the client table, and never leaves the thread; it answers the barriers other threads place
/// (``InotifyThread/place(_:)``) as their markers arrive.
struct InotifyLoop {
    /// The handle other threads use to reach this loop.
    let handle: InotifyThread
    private let inotifyDescriptor: Int32
    private let wakeReadDescriptor: Int32
    private let wakeWatch: WatchDescriptor
    /// The read ends of the pipes whose writes mark places in the kernel's event queue, by their
    /// watches (``InotifyBarriers``).
    private let markerReadDescriptors: [WatchDescriptor: Int32]
    private var clients = InotifyClients()
    private let logger: Logger

    /// Starts the thread, which reports through `started` whether libinotifytools came up and
    /// then serves events and requests forever. Returns an error only if no thread was created.
    static func spawn(
        logger: Logger,
        started: @escaping @Sendable (Result<InotifyThread, FileWatcherError>) -> Void
    ) -> SystemCallError? {
        let body = ThreadBody {
            var signals = sigset_t()
            sigfillset(&signals)
            // Signals belong to the daemon's signal handling, never to this thread's select().
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            switch InotifyLoop.start(logger: logger) {
            case .failure(let error):
                started(.failure(error))
            case .success(var loop):
                started(.success(loop.handle))
                loop.run()
            }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(body).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return SystemCallError(call: "pthread_create", code: result)
        }
        pthread_detach(thread)
        return nil
    }

    /// Initialises libinotifytools, creates the wake-up and marker pipes and watches them, and
    /// finds the library's descriptor; undoes everything on failure.
    private static func start(logger: Logger) -> Result<InotifyLoop, FileWatcherError> {
        guard inotifytools_initialize() == 1 else {
            return .failure(.inotifyUnavailable(SystemCallError(call: "inotify_init", code: inotifytools_error())))
        }
        var opened: [Int32] = []
        func fail(_ error: FileWatcherError) -> Result<InotifyLoop, FileWatcherError> {
            for descriptor in opened {
                close(descriptor)
            }
            inotifytools_cleanup()
            return .failure(error)
        }
        var pipes: [(read: Int32, write: Int32)] = []
        for _ in 0..<(1 + InotifyBarriers.markerCount) {
            switch makePipe() {
            case .success(let pipe):
                opened += [pipe.read, pipe.write]
                pipes.append(pipe)
            case .failure(let error):
                return fail(.inotifyThreadFailed(error))
            }
        }
        let wake = pipes[0]
        var pipeStatus = stat()
        guard fstat(wake.read, &pipeStatus) == 0 else {
            return fail(.inotifyThreadFailed(.lastError(of: "fstat")))
        }
        // The library's own watch call is fine here: its tables are fresh.
        guard inotifytools_watch_file("/proc/self/fd/\(wake.read)", Int32(bitPattern: InotifyEvent.Mask.modify.rawValue)) == 1 else {
            return fail(.inotifyThreadFailed(SystemCallError(call: "inotify_add_watch", code: inotifytools_error())))
        }
        let pipeID = FileIdentity(pipeStatus).fileID
        guard let (descriptor, wakeWatch) = locateLibraryDescriptor(watching: pipeID) else {
            return fail(.inotifyThreadFailed(SystemCallError(call: "read /proc/self/fdinfo", code: ENOENT)))
        }
        guard descriptor < FD_SETSIZE else {
            return fail(.inotifyDescriptorTooHigh(descriptor: descriptor, limit: FD_SETSIZE))
        }
        var markers: [InotifyBarriers.Marker] = []
        var markerReadDescriptors: [WatchDescriptor: Int32] = [:]
        for marker in pipes.dropFirst() {
            let markerWatch = inotify_add_watch(descriptor, "/proc/self/fd/\(marker.read)", InotifyEvent.Mask.modify.rawValue)
            guard markerWatch >= 0 else {
                return fail(.inotifyThreadFailed(.lastError(of: "inotify_add_watch")))
            }
            markers.append(InotifyBarriers.Marker(watch: WatchDescriptor(rawValue: markerWatch), writeDescriptor: marker.write))
            markerReadDescriptors[WatchDescriptor(rawValue: markerWatch)] = marker.read
        }
        logger.debug("inotify thread started", metadata: ["descriptor": "\(descriptor)"])
        return .success(InotifyLoop(
            handle: InotifyThread(wakeDescriptor: wake.write, markers: markers),
            inotifyDescriptor: descriptor,
            wakeReadDescriptor: wake.read,
            wakeWatch: wakeWatch,
            markerReadDescriptors: markerReadDescriptors,
            logger: logger
        ))
    }

    /// A non-blocking, close-on-exec pipe. Glibc's Swift module hides pipe2(), so the flags are set
    /// afterwards (nothing forks meanwhile that would matter: the daemon does not exec).
    private static func makePipe() -> Result<(read: Int32, write: Int32), SystemCallError> {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            return .failure(.lastError(of: "pipe"))
        }
        for descriptor in descriptors {
            guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0,
                  fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) == 0
            else {
                let error = SystemCallError.lastError(of: "fcntl")
                close(descriptors[0])
                close(descriptors[1])
                return .failure(error)
            }
        }
        return .success((descriptors[0], descriptors[1]))
    }

    private init(
        handle: InotifyThread, inotifyDescriptor: Int32, wakeReadDescriptor: Int32, wakeWatch: WatchDescriptor,
        markerReadDescriptors: [WatchDescriptor: Int32], logger: Logger
    ) {
        self.handle = handle
        self.inotifyDescriptor = inotifyDescriptor
        self.wakeReadDescriptor = wakeReadDescriptor
        self.wakeWatch = wakeWatch
        self.markerReadDescriptors = markerReadDescriptors
        self.logger = logger
    }

    /// Reads events one at a time (blocking up to 1 s), hands them to clients, and serves the
    /// mailbox after every wake-up. Idle, this wakes once a second and does nothing.
    private mutating func run() -> Never {
        while true {
            self.handle.noteTurn()
            if let pointer = inotifytools_next_events(1, 1) {
                // Copy first: the next call overwrites the library's buffer.
                let event = InotifyEvent(copying: pointer)
                if event.descriptor == wakeWatch {
                    drain(wakeReadDescriptor)
                } else if let markerRead = markerReadDescriptors[event.descriptor] {
                    drain(markerRead)
                    for barrier in handle.markerArrived(event.descriptor) {
                        barrier.reply(clients.isInSync(barrier.client))
                    }
                } else {
                    clients.deliver(event)
                }
            } else if case let code = inotifytools_error(), code != 0, code != EINTR {
                logger.error("reading inotify events failed", metadata: ["error": "\(SystemCallError(call: "select", code: code))"])
                // Don't spin on a persistent error; the mailbox is still served each second.
                sleep(1)
            }
            for request in handle.takeRequests() {
                serve(request)
            }
            clients.offerOwedOverflows()
            clients._checkInvariants()
        }
    }

    private mutating func serve(_ request: InotifyThread.Request) {
        switch request {
        case .register(let id, let handler):
            clients.register(id, handler: handler)
        case .unregister(let id):
            for descriptor in clients.unregister(id) {
                removeKernelWatch(descriptor)
            }
        case .addWatch(let id, let directory, let reply):
            guard clients.isRegistered(id) else {
                assertionFailure("inotify client \(id) added a watch after unregistering")
                reply(.failure(SystemCallError(call: "inotify_add_watch", code: EBADF)))
                return
            }
            let mask = InotifyEvent.Mask.directoryWatch.rawValue
            let descriptor = inotify_add_watch(inotifyDescriptor, directory, mask)
            guard descriptor >= 0 else {
                reply(.failure(.lastError(of: "inotify_add_watch")))
                return
            }
            clients.addUse(of: WatchDescriptor(rawValue: descriptor), by: id)
            reply(.success(WatchDescriptor(rawValue: descriptor)))
        case .removeWatch(let id, let descriptor):
            if clients.removeUse(of: descriptor, by: id) {
                removeKernelWatch(descriptor)
            }
        }
    }

    /// Removes a kernel watch nobody uses. `EINVAL` means the kernel already dropped it (its
    /// `IN_IGNORED` is on the way), which is fine.
    private func removeKernelWatch(_ descriptor: WatchDescriptor) {
        if inotify_rm_watch(inotifyDescriptor, descriptor.rawValue) != 0, errno != EINVAL {
            logger.warning("removing an inotify watch failed", metadata: [
                "watch": "\(descriptor)", "error": "\(SystemCallError.lastError(of: "inotify_rm_watch"))",
            ])
        }
    }

    private func drain(_ pipe: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(pipe, &buffer, buffer.count) > 0 {}
    }

    /// A closure moved into a new thread through `pthread_create`'s context pointer.
    private final class ThreadBody {
        let run: () -> Void

        init(_ run: @escaping () -> Void) {
            self.run = run
        }
    }
}
