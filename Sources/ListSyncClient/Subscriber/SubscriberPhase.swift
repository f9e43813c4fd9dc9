/// Where a subscriber is in its life; every ``MirrorUpdate`` says which phase it was made in.
public enum SubscriberPhase: Hashable, Sendable {
    /// Opening a connection to the daemon; `attempt` counts from 1 since the last success.
    case connecting(attempt: Int)
    /// Connected: exchanging `hello`s and subscribing.
    case handshaking
    /// Subscribed: applying the snapshot and changesets the daemon pushes.
    case streaming
    /// Resubscribed after something failed verification; waiting for the daemon's answer.
    case resyncing
    /// Waiting `delay` before the next connection attempt.
    case backingOff(delay: Duration)
    /// Finished; no more updates.
    case closed
}
