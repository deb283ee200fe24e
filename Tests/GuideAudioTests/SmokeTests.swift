import Testing
@testable import GuideAudio

@Test func earconsAreNotEmpty() {
    for earcon in Earcon.allCases { #expect(!earcon.samples.isEmpty) }
}
