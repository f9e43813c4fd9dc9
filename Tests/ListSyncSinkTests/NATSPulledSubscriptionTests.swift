import CNATS
import ListSyncTestSupport
import Testing

@testable import NATSTransport

extension NATSTransportTests {
    /// A pulled subscription from a sequence reads its subject's messages once each, in order:
    /// having handed out one message of 299, the server has delivered it at most a batch (an
    /// ordered push consumer is sent all of them); its consumer deleted on the server (as after
    /// the inactivity threshold) while a batch is held, it hands out the rest of the batch, and
    /// once its fetches have gone unanswered for 5 s, finds the consumer gone and starts a new one
    /// after the last message it handed out.
    @Test func aPulledSubscriptionIsSentABatchAtATimeAndOutlivesItsConsumer() async throws {
        let servers = try await NATSServers()
        try await Self.withConnection(servers) { connection in
            try connection.ensureStream(NATSStreamSettings(name: "P", subjects: ["p.a", "p.b"]))
            var sequence: UInt64 = 0
            for index in 0..<300 {
                sequence = try connection.publish(
                    Array("m\(index)".utf8)[...], to: "p.a", of: "P", messageID: "a\(index)", expectedLastSubjectSequence: sequence, headers: []
                ).sequence
                _ = try connection.publish(Array("other".utf8)[...], to: "p.b", of: "P", messageID: "b\(index)", expectedLastSubjectSequence: nil, headers: [])
            }
            // Message 1 of p.a is at stream sequence 3.
            let subscription = try NATSPulledSubscription(connection: connection, stream: "P", subject: "p.a", from: 3)
            var read = [try #require(try subscription.next(timeoutMilliseconds: 5000))]
            let consumer = try subscription.consumerState()
            #expect(consumer.delivered <= UInt64(NATSPulledSubscription.batchMessages), "delivered \(consumer.delivered) of 299 after one was read")

            var code = jsErrCode(rawValue: 0)
            #expect(js_DeleteConsumer(connection.context, "P", consumer.name, nil, &code) == NATS_OK, "the consumer is deleted")
            // Asked again after each empty wait, as the stream follower does.
            let deadline = ContinuousClock.now + .seconds(30)
            while read.count < 299, ContinuousClock.now < deadline {
                if let message = try subscription.next(timeoutMilliseconds: 1000) { read.append(message) }
            }
            let payloads = read.map { String(decoding: $0.payload, as: UTF8.self) }
            let expectedPayloads: [String] = (1..<300).map { "m\($0)" }
            #expect(payloads == expectedPayloads, "each message once, in order")
            let expectedSequences: [UInt64] = (1..<300).map { UInt64(2 * $0 + 1) }
            #expect(read.map(\.streamSequence) == expectedSequences)
            #expect(try subscription.consumerState().name != consumer.name, "a new consumer")
            #expect(try subscription.next(timeoutMilliseconds: 200) == nil)
            subscription.close()
        }
    }
}
