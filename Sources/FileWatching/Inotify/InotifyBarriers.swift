/// Barrier requests waiting for the inotify thread to have delivered every event queued before
/// them (``InotifyThread/Client/barrier(reply:)``).
///
/// The kernel's event queue is first in, first out, so a barrier is a one-byte write to a private
/// *marker* pipe that the thread watches through inotify: when that write's `IN_MODIFY` comes out
/// of the queue, everything queued before the write has been delivered. The write is made by the
/// thread that asks for the barrier, the moment it asks — a reader marks the exact ends of its
/// read, not a later moment when another thread gets round to it.
///
/// A marker has at most one write unread: two writes to one pipe can merge into one event, which
/// would not say which barriers it answers. So there are several markers, and a barrier takes an
/// idle one; when all are in flight it waits for the next marker to arrive, which writes again
/// for every barrier waiting — later than asked, which the asker is told: an end mark placed late
/// only makes a check stricter, but a start mark placed late would let a save during the read
/// pass for one before it, so such a read is refused.
/// Shared between the asking threads and the inotify thread under ``InotifyThread``'s lock.
struct InotifyBarriers {
    typealias Barrier = (client: InotifyThread.ClientID, reply: @Sendable (Bool) -> Void)

    /// A marker pipe: its write end and the watch its writes raise `IN_MODIFY` on.
    struct Marker: Hashable, Sendable {
        let watch: WatchDescriptor
        let writeDescriptor: Int32
    }

    /// How many markers the inotify thread makes: eight reads at once (the daemon's thread pool
    /// reads for several watches), each with the barriers at both its ends in flight.
    static let markerCount = 16

    /// Markers with no write unread.
    private var idle: [Marker]
    /// Markers with one write unread, and the barriers answered when it arrives.
    private var inFlight: [WatchDescriptor: (marker: Marker, covered: [Barrier])] = [:]
    /// Barriers that came while every marker was in flight.
    private var waiting: [Barrier] = []

    init(markers: [Marker]) {
        precondition(!markers.isEmpty, "barriers need at least one marker")
        self.idle = markers
    }

    /// Takes a new barrier. Returns the marker the caller must write now, if one was idle.
    mutating func add(_ barrier: Barrier) -> Marker? {
        guard let marker = idle.popLast() else {
            waiting.append(barrier)
            return nil
        }
        inFlight[marker.watch] = (marker, [barrier])
        return marker
    }

    /// The write on the marker watched by `watch` arrived: returns the barriers it answers, and
    /// the marker to write again at once for the barriers that waited, if any did.
    mutating func markerArrived(_ watch: WatchDescriptor) -> (answered: [Barrier], writeAgain: Marker?) {
        guard let (marker, covered) = inFlight.removeValue(forKey: watch) else {
            // No write is unread on it (each write raises one event): there is nothing to answer.
            return ([], nil)
        }
        guard !waiting.isEmpty else {
            idle.append(marker)
            return (covered, nil)
        }
        inFlight[watch] = (marker, waiting)
        waiting = []
        return (covered, marker)
    }
}
