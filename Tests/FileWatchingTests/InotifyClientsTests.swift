import Synchronization
import Testing
@testable import FileWatching

/// The inotify thread's bookkeeping, without the thread: shared kernel watches and owed overflows.
struct InotifyClientsTests {
    /// Records what a client was handed; refuses events while `accepting` is false.
    final class Recipient: Sendable {
        let received = Mutex<[InotifyEvent]>([])
        let accepting = Atomic(true)

        var handler: InotifyThread.EventHandler {
            { event in
                guard self.accepting.load(ordering: .relaxed) else { return false }
                self.received.withLock { $0.append(event) }
                return true
            }
        }

        var events: [InotifyEvent] { received.withLock { $0 } }
    }

    let watch = WatchDescriptor(rawValue: 7)

    func event(_ name: String, _ mask: InotifyEvent.Mask = .modify) -> InotifyEvent {
        InotifyEvent(descriptor: watch, mask: mask, name: name)
    }

    @Test func aSharedWatchGoesOnlyWithItsLastUse() {
        var clients = InotifyClients()
        clients.register(1, handler: Recipient().handler)
        clients.register(2, handler: Recipient().handler)
        clients.addUse(of: watch, by: 1)
        clients.addUse(of: watch, by: 1)
        clients.addUse(of: watch, by: 2)

        let removals = [clients.removeUse(of: watch, by: 1), clients.removeUse(of: watch, by: 1)]
        let unused = clients.unregister(2)

        #expect(removals == [false, false])
        #expect(unused == [watch])
        clients._checkInvariants()
    }

    @Test func eventsGoToTheUsersOfTheirWatchAndOverflowsToEveryone() {
        var clients = InotifyClients()
        let user = Recipient()
        let other = Recipient()
        clients.register(1, handler: user.handler)
        clients.register(2, handler: other.handler)
        clients.addUse(of: watch, by: 1)

        clients.deliver(event("list.csv"))
        clients.deliver(.overflow)

        #expect(user.events == [event("list.csv"), .overflow])
        #expect(other.events == [.overflow])
    }

    @Test func ignoredEndsEveryUseOfTheWatch() {
        var clients = InotifyClients()
        let user = Recipient()
        clients.register(1, handler: user.handler)
        clients.addUse(of: watch, by: 1)

        clients.deliver(event("", .ignored))
        clients.deliver(event("late.csv"))

        #expect(user.events == [event("", .ignored)])
        // Nothing is left to remove from the kernel: the kernel already dropped it.
        let unused = clients.unregister(1)
        #expect(unused.isEmpty)
        clients._checkInvariants()
    }

    @Test func aRefusedEventIsOwedAsAnOverflowBeforeAnythingElse() {
        var clients = InotifyClients()
        let user = Recipient()
        clients.register(1, handler: user.handler)
        clients.addUse(of: watch, by: 1)

        user.accepting.store(false, ordering: .relaxed)
        clients.deliver(event("first.csv"))
        clients.offerOwedOverflows()
        #expect(user.events.isEmpty)

        user.accepting.store(true, ordering: .relaxed)
        clients.deliver(event("second.csv"))
        clients.offerOwedOverflows()

        #expect(user.events == [.overflow, event("second.csv")])
    }
}
