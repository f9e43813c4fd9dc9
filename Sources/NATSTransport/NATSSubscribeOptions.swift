import CNATS
import Glibc

/// The subscribe options every reader of a stream starts from: the stream, and where in it to
/// start. One place for the ordered and the pulled subscriptions.
enum NATSSubscribeOptions {
    /// Options that read `stream` from `sequence` (1: from the first message the stream holds),
    /// handed to `body` to complete and subscribe with; the stream's name lives until `body`
    /// returns.
    static func reading<Result>(_ stream: String, from sequence: UInt64, _ body: (inout jsSubOptions) -> Result) -> Result {
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        let streamName = strdup(stream)
        defer { free(streamName) }
        options.Stream = UnsafePointer(streamName)
        if sequence > 1 {
            options.Config.DeliverPolicy = js_DeliverByStartSequence
            options.Config.OptStartSeq = sequence
        } else {
            options.Config.DeliverPolicy = js_DeliverAll
        }
        return body(&options)
    }
}
