import Synchronization

/// Hands updates from a subscriber task to the task that iterates them, one at a time: the
/// subscriber waits until the consumer has taken an update *and asked for the next one* before it
/// reads further from the daemon.
///
/// So nothing queues up in between (the socket's own backpressure reaches the daemon, whose
/// flow control handles slow subscribers), and by the time the subscriber changes its mirror, the
/// consumer is done with the copy it was given — the change happens in place instead of copying
/// the list.
final class UpdateHandoff<Element: Sendable>: Sendable {
    private typealias Consumer = CheckedContinuation<Result<Element?, ClientError>, Never>
    private typealias Producer = CheckedContinuation<Bool, Never>

    private enum State {
        /// Nothing pending, nobody waiting.
        case idle
        /// The consumer waits for the next element.
        case consumerWaiting(Consumer)
        /// The producer offered `element`; it waits until the consumer takes it and comes back.
        case offered(Element, producer: Producer)
        /// The consumer holds the last element; the producer waits until it asks for the next.
        case taken(producer: Producer)
        /// The producer is done; `error` is thrown by the next request, then the sequence ends.
        case finished(ClientError?)
        /// The consumer is gone: offers are refused.
        case consumerGone
    }

    private let state = Mutex<State>(.idle)

    /// What an offer found.
    private enum Offer {
        case wait
        case handTo(Consumer)
        case refuse
    }

    init() {}

    /// Offers `element`; returns `true` once the consumer took it and asked for the next one,
    /// `false` when the consumer is gone or this task was cancelled.
    func send(_ element: Element) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (producer: Producer) in
                let outcome = self.state.withLock { state -> Offer in
                    switch state {
                    case .idle:
                        state = .offered(element, producer: producer)
                        return .wait
                    case .consumerWaiting(let consumer):
                        state = .taken(producer: producer)
                        return .handTo(consumer)
                    case .offered, .taken, .finished, .consumerGone:
                        // One producer, which finishes last: only a gone consumer gets here.
                        return .refuse
                    }
                }
                switch outcome {
                case .wait: break
                case .handTo(let consumer): consumer.resume(returning: .success(element))
                case .refuse: producer.resume(returning: false)
                }
            }
        } onCancel: {
            self.consumerFinished()
        }
    }

    /// The producer is done: the consumer gets `error` (or the end of the sequence).
    func finish(_ error: ClientError?) {
        let consumer = self.state.withLock { state -> Consumer? in
            switch state {
            case .consumerWaiting(let consumer):
                state = .finished(nil)
                return consumer
            case .idle, .offered, .taken:
                state = .finished(error)
                return nil
            case .finished, .consumerGone:
                return nil
            }
        }
        consumer?.resume(returning: error.map { .failure($0) } ?? .success(nil))
    }

    /// The next element; `nil` at the end.
    ///
    /// - Throws: The producer's error once, or ``ClientError/cancelled`` when the consuming task
    ///   is cancelled while it waits.
    func next() async throws(ClientError) -> Element? {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (consumer: Consumer) in
                let (answer, producer) = self.state.withLock { state -> (Result<Element?, ClientError>?, Producer?) in
                    switch state {
                    case .idle:
                        state = .consumerWaiting(consumer)
                        return (nil, nil)
                    case .offered(let element, let producer):
                        state = .taken(producer: producer)
                        return (.success(element), nil)
                    case .taken(let producer):
                        state = .consumerWaiting(consumer)
                        return (nil, producer)
                    case .finished(let error):
                        state = .finished(nil)
                        return (error.map { .failure($0) } ?? .success(nil), nil)
                    case .consumerWaiting, .consumerGone:
                        return (.success(nil), nil)
                    }
                }
                producer?.resume(returning: true)
                if let answer { consumer.resume(returning: answer) }
            }
        } onCancel: {
            let consumer = self.state.withLock { state -> Consumer? in
                guard case .consumerWaiting(let consumer) = state else { return nil }
                state = .consumerGone
                return consumer
            }
            consumer?.resume(returning: .failure(.cancelled))
        }
        return try result.get()
    }

    /// The consumer stopped iterating (or the producer was cancelled): offers are refused from
    /// now on, and whoever waits is woken.
    func consumerFinished() {
        let (producer, consumer) = self.state.withLock { state -> (Producer?, Consumer?) in
            let waiting: (Producer?, Consumer?)
            switch state {
            case .offered(_, let producer), .taken(let producer):
                waiting = (producer, nil)
            case .consumerWaiting(let consumer):
                waiting = (nil, consumer)
            case .idle, .finished, .consumerGone:
                waiting = (nil, nil)
            }
            state = .consumerGone
            return waiting
        }
        producer?.resume(returning: false)
        consumer?.resume(returning: .failure(.cancelled))
    }
}
