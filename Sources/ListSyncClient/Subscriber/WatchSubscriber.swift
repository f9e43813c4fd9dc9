import NIOCore

/// Runs a ``SubscriberStateMachine`` against real connections: opens them, sends what the
/// machine says, feeds it what arrives, sleeps through backoffs, and hands updates over.
struct WatchSubscriber {
    private var machine: SubscriberStateMachine
    private let eventLoopGroup: any EventLoopGroup

    init(machine: SubscriberStateMachine, eventLoopGroup: any EventLoopGroup) {
        self.machine = machine
        self.eventLoopGroup = eventLoopGroup
    }

    /// Runs until the subscription finishes (with an error, or when the consumer is gone); the
    /// consumer gets the updates through `handoff`, which is finished at the end.
    mutating func run(delivering handoff: UpdateHandoff<MirrorUpdate>) async {
        var actions: [SubscriberStateMachine.Action] = [self.machine.start()]
        loop: while !actions.isEmpty, !Task.isCancelled {
            let action = actions.removeFirst()
            switch action {
            case .connect:
                actions = await self.connect(delivering: handoff)
            case .emit(let update):
                guard await handoff.send(update) else { break loop }
            case .wait(let delay):
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    break loop
                }
                actions += self.machine.backoffElapsed()
            case .finish(let error):
                handoff.finish(error)
                return
            case .send, .disconnect:
                // Only made while a connection is open, and handled in `connect`.
                continue
            }
        }
        // Cancelled, or the consumer is gone.
        handoff.finish(.cancelled)
    }

    /// Opens a connection and streams on it until the machine leaves it; returns the actions that
    /// follow.
    private mutating func connect(delivering handoff: UpdateHandoff<MirrorUpdate>) async -> [SubscriberStateMachine.Action] {
        do {
            return try await DaemonConnection.withConnection(
                configuration: self.machine.configuration, eventLoopGroup: self.eventLoopGroup
            ) { connection in
                try await self.stream(on: &connection, delivering: handoff)
            }
        } catch {
            return self.machine.connectionFailed(reason: ConnectionFailure(error).reason)
        }
    }

    /// Performs the machine's actions on `connection` and feeds it what arrives, until an action
    /// leaves the connection (then returns it and the ones after it).
    private mutating func stream(
        on connection: inout DaemonConnection, delivering handoff: UpdateHandoff<MirrorUpdate>
    ) async throws -> [SubscriberStateMachine.Action] {
        var actions = self.machine.connected()
        // A send that failed because the daemon closed first: what it sent before closing (a
        // refusal) is read and given to the machine before the failure is reported.
        var sendFailure: ConnectionFailure?
        while true {
            while !actions.isEmpty {
                let action = actions.removeFirst()
                switch action {
                case .send(let message):
                    do {
                        try await connection.send(message)
                    } catch {
                        sendFailure = sendFailure ?? error
                    }
                case .emit(let update):
                    if await !handoff.send(update) {
                        return self.machine.cancel()
                    }
                case .disconnect:
                    return actions
                case .connect, .wait, .finish:
                    return [action] + actions
                }
            }
            switch try await connection.next() {
            case .message(let message):
                actions = self.machine.received(message)
            case .undecodable(let error):
                actions = self.machine.receivedUndecodable(error)
            case nil:
                return self.machine.connectionFailed(reason: sendFailure?.reason ?? "the daemon closed the connection")
            }
        }
    }
}
