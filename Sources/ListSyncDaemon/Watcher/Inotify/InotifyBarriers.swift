/// Barrier requests waiting for the inotify thread to have delivered every event queued before
/// them (``InotifyThread/Client/barrier(reply:)``).
///
/// The kernel's event queue is first in, first out, so the thread writes one byte to a private
/// *marker* pipe that it watches through inotify: when that write's `IN_MODIFY` comes out of the
/// queue, everything queued before the write has been delivered. Only one marker is in flight at
/// a time — two writes could merge into one event, which would say nothing about the second —
/// and the barriers that arrive meanwhile wait for the next one. Lives on the inotify thread only.
struct InotifyBarriers {
    typealias Barrier = (client: InotifyThread.ClientID, reply: @Sendable (Bool) -> Void)

    private enum State {
        /// No marker is in flight.
        case idle
        /// A marker is in flight; `covered` are answered when it arrives.
        case markerInFlight(covered: [Barrier])
    }

    private var state = State.idle
    /// Barriers that came after the marker in flight was written.
    private var waiting: [Barrier] = []

    /// Takes a new barrier. Returns `true` when the caller must write a marker now.
    mutating func add(_ barrier: Barrier) -> Bool {
        switch state {
        case .idle:
            state = .markerInFlight(covered: [barrier])
            return true
        case .markerInFlight:
            waiting.append(barrier)
            return false
        }
    }

    /// The marker in flight arrived: returns the barriers it answers, and whether the caller must
    /// write the next marker for the barriers that waited.
    mutating func markerArrived() -> (answered: [Barrier], writeNextMarker: Bool) {
        guard case .markerInFlight(let covered) = state else {
            // No marker is in flight (each write raises one event): there is nothing to answer.
            return ([], false)
        }
        guard !waiting.isEmpty else {
            state = .idle
            return (covered, false)
        }
        state = .markerInFlight(covered: waiting)
        waiting = []
        return (covered, true)
    }
}
