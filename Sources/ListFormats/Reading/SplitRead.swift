#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import Dispatch
#endif

/// Reading a large linear list in two halves at once, one per core.
///
/// A reader picks a place near the middle where a record probably starts
/// (`listsync_csv_split_point`, `listsync_json_split_point`), reads the
/// records before it on this thread and those from it on another, then
/// joins the halves. The guess is checked: the first half must stop exactly
/// where the second one started. When it does not (the place was inside a
/// quoted field or a string after all), the first half reads on alone and
/// the second half's work is dropped. Either way the list, its report and
/// its first error are those of one reader going through the file in order.
enum SplitRead {
    /// Files smaller than this are read on one thread: the second thread
    /// would not pay for itself.
    static let minimumSize = 16 << 20

    /// Whether the machine has a second core to read on.
    static let hasSecondCore: Bool = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1

    /// Whether `count` bytes are worth reading in halves.
    static func isWorthIt(_ count: Int) -> Bool {
        count >= minimumSize && hasSecondCore
    }

    /// Runs `first` on this thread and `second` on another, at the same
    /// time; returns when both are done.
    static func both(_ first: () -> Void, _ second: () -> Void) {
        #if os(Linux)
        // A thread of its own, not a pool's: libdispatch's pool may run both
        // halves on one thread when the other core is busy.
        withoutActuallyEscaping(second) { second in
            let work = Unmanaged.passRetained(SecondHalf(second))
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<SecondHalf>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, work.toOpaque())
            first()
            if started == 0 {
                pthread_join(thread, nil)
            } else {
                // No thread to be had: one after the other.
                work.takeRetainedValue().run()
            }
        }
        #else
        withoutActuallyEscaping(first) { first in
            withoutActuallyEscaping(second) { second in
                let halves = UncheckedSendable(value: (first, second))
                DispatchQueue.concurrentPerform(iterations: 2) { half in
                    if half == 0 { halves.value.0() } else { halves.value.1() }
                }
            }
        }
        #endif
    }

    #if os(Linux)
    /// The second half's work, handed to its thread (which runs it once,
    /// before ``both(_:_:)`` returns).
    private final class SecondHalf {
        let run: () -> Void

        init(_ run: @escaping () -> Void) {
            self.run = run
        }
    }
    #else
    private struct UncheckedSendable<Value>: @unchecked Sendable {
        let value: Value
    }
    #endif
}
