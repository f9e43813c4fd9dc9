import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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

    /// Runs `first` and `second` at the same time (on two threads when the
    /// system has one free); returns when both are done.
    static func both(_ first: () -> Void, _ second: () -> Void) {
        withoutActuallyEscaping(first) { first in
            withoutActuallyEscaping(second) { second in
                // The two closures touch disjoint state, and both are done
                // before this returns.
                let work = UncheckedSendable(value: (first, second))
                DispatchQueue.concurrentPerform(iterations: 2) { half in
                    if half == 0 { work.value.0() } else { work.value.1() }
                }
            }
        }
    }

    private struct UncheckedSendable<Value>: @unchecked Sendable {
        let value: Value
    }
}
