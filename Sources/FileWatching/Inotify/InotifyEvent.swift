import CInotifyTools

/// One inotify event, copied out of libinotifytools' static buffer.
///
/// `inotifytools_next_events` returns a pointer into storage that the next call overwrites,
/// so ``InotifyLoop`` turns every event into this value before doing anything else.
struct InotifyEvent: Hashable, Sendable {
    /// The watch the event belongs to; ``WatchDescriptor/none`` for a queue overflow.
    var descriptor: WatchDescriptor
    var mask: Mask
    /// The entry name inside the watched directory; empty for events about the directory itself.
    var name: String
    /// What pairs an `IN_MOVED_FROM` with its `IN_MOVED_TO` (0 for other events).
    var cookie: UInt32

    /// Events were lost — the kernel's queue was full, or the watcher fell behind and the
    /// inotify thread stopped queueing for it: everything must be re-checked.
    static let overflow = InotifyEvent(descriptor: .none, mask: .queueOverflow, name: "")

    init(descriptor: WatchDescriptor, mask: Mask, name: String, cookie: UInt32 = 0) {
        self.descriptor = descriptor
        self.mask = mask
        self.name = name
        self.cookie = cookie
    }

    /// Copies the event `pointer` refers to, including its NUL-padded name.
    init(copying pointer: UnsafePointer<inotify_event>) {
        let event = pointer.pointee
        let nameStart = UnsafeRawPointer(pointer) + MemoryLayout<inotify_event>.size
        let nameBytes = UnsafeBufferPointer(start: nameStart.assumingMemoryBound(to: UInt8.self), count: Int(event.len))
        // The kernel pads `name` with NULs up to `len`; the name ends at the first one.
        let nameEnd = nameBytes.firstIndex(of: 0) ?? nameBytes.count
        self.init(
            descriptor: WatchDescriptor(rawValue: event.wd),
            mask: Mask(rawValue: event.mask),
            name: String(decoding: nameBytes[..<nameEnd], as: UTF8.self),
            cookie: event.cookie
        )
    }
}

extension InotifyEvent {
    /// The `IN_*` bits of an event or of a watch request.
    struct Mask: OptionSet, Hashable, Sendable {
        var rawValue: UInt32

        static let modify = Mask(IN_MODIFY)
        static let attributes = Mask(IN_ATTRIB)
        static let closeWrite = Mask(IN_CLOSE_WRITE)
        static let open = Mask(IN_OPEN)
        static let closeNoWrite = Mask(IN_CLOSE_NOWRITE)
        static let movedFrom = Mask(IN_MOVED_FROM)
        static let movedTo = Mask(IN_MOVED_TO)
        static let create = Mask(IN_CREATE)
        static let delete = Mask(IN_DELETE)
        static let deleteSelf = Mask(IN_DELETE_SELF)
        static let moveSelf = Mask(IN_MOVE_SELF)
        static let queueOverflow = Mask(IN_Q_OVERFLOW)
        static let ignored = Mask(IN_IGNORED)
        static let onlyDirectory = Mask(IN_ONLYDIR)

        /// What a watched file's parent directory is watched for: every way an entry can be
        /// written, replaced, created or removed, its opens and closes (a file is complete only
        /// while nobody has it open), and the directory itself going away.
        /// `IN_IGNORED`, `IN_UNMOUNT` and `IN_Q_OVERFLOW` come without asking.
        static let directoryWatch: Mask = [
            .modify, .attributes, .closeWrite, .open, .closeNoWrite, .movedFrom, .movedTo, .create, .delete,
            .deleteSelf, .moveSelf, .onlyDirectory,
        ]

        /// The events that say an entry's content or identity may have changed; opens and
        /// read-only closes change nothing.
        static let changes: Mask = [.modify, .attributes, .closeWrite, .movedFrom, .movedTo, .create, .delete]

        init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        private init(_ constant: Int32) {
            self.rawValue = UInt32(bitPattern: constant)
        }
    }
}
