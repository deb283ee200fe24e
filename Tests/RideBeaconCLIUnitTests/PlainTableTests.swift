@testable import RideBeaconCLI
import Testing

/// Issue 37, smaller points: names with emoji and in Arabic were cut mid-character in the
/// CLI's tables (each scalar made a character of its own, and the joiners became spaces).
@Suite("plain tables keep every character whole")
struct PlainTableTests {
    @Test(arguments: ["👩‍💻 Ana", "Ben 👍🏽", "🇪🇸 Lucía", "\u{200F}مريم\u{200F}", "e\u{301}lodie"])
    func aNameComesOutAsItWentIn(name: String) {
        #expect(PlainTable.clean(name) == name)
        let table = PlainTable.render(header: ["NAME", "STATE"], rows: [[name, "arrived"]])
        #expect(table.split(separator: "\n").last.map { $0.hasPrefix(name) } == true, "\(table.debugDescription)")
    }

    @Test func controlCharactersStillBecomeSpaces() {
        #expect(PlainTable.clean("Ana\u{1B}[31m\nBen\u{7}") == "Ana [31m Ben ")
        #expect(PlainTable.clean("") == "-")
    }
}
