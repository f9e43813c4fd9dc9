import Testing
@testable import ListSyncDaemon

/// A version's timeline says each step's offset from the file's event, to the microsecond, in
/// the order the steps happened (which is not always the order they are declared in: the
/// watcher's confirmation may come before or after the parse starts).
@Suite struct VersionTimelineTests {
    @Test func stepsAreListedInTheOrderTheyHappenedAsOffsetsFromTheEvent() {
        let event = ContinuousClock.now
        var timeline = VersionTimeline(event: event, taken: event + .microseconds(100))
        timeline.readStarted = event + .microseconds(130)
        timeline.readEnded = event + .milliseconds(7) + .microseconds(5)
        // The parse started before the confirmation was seen.
        timeline.ingestStarted = event + .milliseconds(7) + .microseconds(50)
        timeline.confirmed = event + .milliseconds(7) + .microseconds(90)
        timeline.ingested = event + .milliseconds(19)
        timeline.synced = event + .milliseconds(27) + .microseconds(120)
        timeline.published = event + .milliseconds(27) + .microseconds(400)
        #expect(
            timeline.description
                == "taken=+0.100 read_started=+0.130 read_ended=+7.005 ingest_started=+7.050 confirmed=+7.090 ingested=+19.000 synced=+27.120 published=+27.400"
        )
    }

    @Test func withoutAnEventTheOffsetsCountFromTheRequest() {
        let taken = ContinuousClock.now
        var timeline = VersionTimeline(event: nil, taken: taken)
        timeline.readStarted = taken + .microseconds(2_500)
        #expect(timeline.description == "taken=+0.000 read_started=+2.500")
    }

    @Test func millisecondsAreWrittenToTheMicrosecond() {
        #expect(Duration.microseconds(1).loggedMilliseconds == "0.001")
        #expect((Duration.milliseconds(12) + .microseconds(34)).loggedMilliseconds == "12.034")
        #expect(Duration.microseconds(-1_500).loggedMilliseconds == "-1.500")
        #expect(Duration.seconds(2).loggedMilliseconds == "2000.000")
    }
}
