/// Which clients of the ``InotifyThread`` use which kernel watches, and which are owed an overflow.
///
/// The kernel gives one watch descriptor per inode and inotify instance, so two watchers (or two
/// paths of one watcher) watching the same directory share a descriptor; a descriptor is removed
/// from the kernel only when its last use is dropped. Lives on the inotify thread only.
struct InotifyClients {
    private enum Delivery {
        /// Every event for the client's watches was handed over.
        case inSync
        /// An event was refused (the client's buffer was full): the client must be told it missed
        /// events with an ``InotifyEvent/overflow`` before it gets anything else.
        case owesOverflow
    }

    private struct Client {
        let handler: InotifyThread.EventHandler
        /// How many times the client added each descriptor (one directory may be added under two
        /// names that resolve to the same inode).
        var uses: [WatchDescriptor: Int] = [:]
        var delivery = Delivery.inSync
    }

    private var clients: [InotifyThread.ClientID: Client] = [:]
    private var users: [WatchDescriptor: Set<InotifyThread.ClientID>] = [:]

    var isEmpty: Bool { clients.isEmpty }

    func isRegistered(_ id: InotifyThread.ClientID) -> Bool {
        clients[id] != nil
    }

    /// Whether the client took every event offered to it so far (it owes no overflow).
    func isInSync(_ id: InotifyThread.ClientID) -> Bool {
        clients[id]?.delivery == .inSync
    }

    mutating func register(_ id: InotifyThread.ClientID, handler: @escaping InotifyThread.EventHandler) {
        clients[id] = Client(handler: handler)
    }

    /// Forgets the client; returns the descriptors nobody uses any more, to remove from the kernel.
    mutating func unregister(_ id: InotifyThread.ClientID) -> [WatchDescriptor] {
        guard let client = clients.removeValue(forKey: id) else { return [] }
        return client.uses.keys.filter { dropUser(id, of: $0) }
    }

    /// Records one more use of `descriptor` by a registered client.
    mutating func addUse(of descriptor: WatchDescriptor, by id: InotifyThread.ClientID) {
        clients[id]?.uses[descriptor, default: 0] += 1
        users[descriptor, default: []].insert(id)
    }

    /// Drops one use; returns `true` when nobody uses `descriptor` any more.
    mutating func removeUse(of descriptor: WatchDescriptor, by id: InotifyThread.ClientID) -> Bool {
        guard let count = clients[id]?.uses[descriptor] else { return false }
        if count > 1 {
            clients[id]?.uses[descriptor] = count - 1
            return false
        }
        clients[id]?.uses[descriptor] = nil
        return dropUser(id, of: descriptor)
    }

    /// Hands `event` to the clients it concerns: everyone for an overflow, the users of its
    /// descriptor otherwise. After `IN_IGNORED` the kernel watch is gone, so its uses are dropped.
    mutating func deliver(_ event: InotifyEvent) {
        let recipients = event.descriptor == .none ? Array(clients.keys) : Array(users[event.descriptor] ?? [])
        for id in recipients {
            deliver(event, to: id)
        }
        if event.mask.contains(.ignored), let ids = users.removeValue(forKey: event.descriptor) {
            for id in ids {
                clients[id]?.uses[event.descriptor] = nil
            }
        }
    }

    /// Offers the owed overflow again to every client that refused an event.
    mutating func offerOwedOverflows() {
        for (id, client) in clients where client.delivery == .owesOverflow {
            deliver(.overflow, to: id)
        }
    }

    private mutating func deliver(_ event: InotifyEvent, to id: InotifyThread.ClientID) {
        guard var client = clients[id] else { return }
        defer { clients[id] = client }
        if client.delivery == .owesOverflow {
            guard client.handler(.overflow) else { return }
            client.delivery = .inSync
            // The overflow just delivered already says everything `event` could.
            if event == .overflow { return }
        }
        if !client.handler(event) {
            client.delivery = .owesOverflow
        }
    }

    private mutating func dropUser(_ id: InotifyThread.ClientID, of descriptor: WatchDescriptor) -> Bool {
        users[descriptor]?.remove(id)
        guard users[descriptor]?.isEmpty ?? false else { return false }
        users[descriptor] = nil
        return true
    }

    /// Checks that the two directions of the use table agree (debug builds only).
    func _checkInvariants() {
        #if DEBUG
        for (id, client) in clients {
            for (descriptor, count) in client.uses {
                precondition(count > 0, "client \(id) keeps a zero use count for \(descriptor)")
                precondition(users[descriptor]?.contains(id) ?? false, "client \(id) uses \(descriptor) but is not listed as its user")
            }
        }
        for (descriptor, ids) in users {
            precondition(!ids.isEmpty, "\(descriptor) is kept with no users")
            for id in ids {
                precondition(clients[id]?.uses[descriptor] != nil, "\(descriptor) lists client \(id), which does not use it")
            }
        }
        #endif
    }
}
