import RideClient
import Testing

@Suite("Server-sent event parser")
struct ServerSentEventParserTests {
    static let stream = Array("retry: 2000\n\n: heartbeat\n\nid: 42\nevent: arrived\ndata: {\"a\":1}\n\nid: 43\ndata: line one\ndata: line two\n\n".utf8)

    @Test func parsesEventsAndSkipsCommentsWhateverTheChunking() {
        let expected = [ServerSentEvent(retry: 2000),
                        ServerSentEvent(id: "42", event: "arrived", data: #"{"a":1}"#),
                        ServerSentEvent(id: "43", data: "line one\nline two")]
        for size in [1, 2, 3, 7, 64, Self.stream.count] {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            var offset = 0
            while offset < Self.stream.count {
                events += parser.push(Self.stream[offset..<min(offset + size, Self.stream.count)])
                offset += size
            }
            #expect(events == expected, "chunk size \(size)")
        }
    }

    @Test func crlfAndCrLineEndingsEvenSplitAcrossChunks() {
        var parser = ServerSentEventParser()
        var events = parser.push(Array("id: 1\r".utf8))
        events += parser.push(Array("\ndata: x\r\r".utf8))
        events += parser.push(Array("data:y\r\n\r\n".utf8))
        #expect(events == [ServerSentEvent(id: "1", data: "x"), ServerSentEvent(data: "y")])
    }

    @Test func garbageNeverTrapsAndAnIncompleteEventIsNotDispatched() {
        var parser = ServerSentEventParser()
        #expect(parser.push([0xFF, 0xFE, 0x00, 0x0A, 0x3A, 0x0A]).isEmpty)
        #expect(parser.push(Array("data: half".utf8)).isEmpty)
        var long = ServerSentEventParser()
        let events = long.push(Array("data: ".utf8) + [UInt8](repeating: 0x41, count: ServerSentEventParser.maxLineBytes + 10) + [0x0A, 0x0A])
        #expect(events.count == 1 && (events.first?.data?.utf8.count ?? 0) < ServerSentEventParser.maxLineBytes)
    }
}
