import Testing
@testable import GuideAudio

@Suite struct LiveCuePlayerTests {
    @Test func cuesReachTheSinkInOrderWithTheirAttentionTone() throws {
        let sink = MemorySink()
        let player = LiveCuePlayer(speech: try espeak(), sink: sink, log: { _ in })
        player.start()
        player.setPulse(interval: 0.5)
        let earcon = player.play(.closer)
        let phrase = player.say("Your driver has arrived.", urgent: true)
        try player.stop()
        let log = player.log
        let spoken = log[phrase.id], motif = log[earcon.id]
        #expect(spoken.fate == .sounded && motif.fate == .sounded)
        #expect(spoken.start! >= motif.end!, "the phrase waited for the earcon")
        let start = spoken.startSample!
        #expect(Array(sink.samples[start..<start + Earcon.attention.samples.count]) == Earcon.attention.samples)
        #expect(sink.samples.count >= Int(spoken.end! * sampleRate) - 1, "stop() drained the accepted cues")
    }

    @Test func stopWithoutStartStillDrainsAndCloses() throws {
        let sink = MemorySink()
        let player = LiveCuePlayer(speech: nil, sink: sink, log: { _ in })
        player.play(.touch)
        try player.stop()
        #expect(PCMAnalysis.peak(sink.samples) > 0.2)
    }

    @Test(arguments: [CueKind.earcon(.closer), .earcon(.touch), .speech("About three meters."), .locatorTick])
    func aRequestedCueIsInTheSinkWhenTheCallReturns(_ cue: CueKind) throws {
        let sink = MemorySink()
        let player = LiveCuePlayer(speech: try espeak(), sink: sink, log: { _ in })
        player.start()
        player.setPulse(interval: 0)  // continuous ticks: the cue has to cut one short first
        let outcome = switch cue {
        case .earcon(let earcon): player.play(earcon)
        case .speech(let text): player.say(text)
        case .locatorTick: player.playLocatorTick()
        }
        let start = try #require(player.log[outcome.id].startSample, "started at once")
        #expect(sink.samples.count > start, "first sample written before the call returned")
        try player.stop()
    }
}
