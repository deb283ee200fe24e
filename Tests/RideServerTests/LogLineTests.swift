import Foundation
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import PropertyBased
@testable import RideServer
import RideBeaconTesting
import Testing

/// Log lines are written by hand and by a thread of their own (issue 39: every request writes
/// one): still one valid JSON object per line, in order, and a stalled output never holds the
/// logging task.
@Suite("Log lines", .timeLimit(.minutes(2)))
struct LogLineTests {
    @Test func anyFieldsMakeOneLineOfJSONWithSortedKeys() async throws {
        let alphabet = Array("ab\"\\/\n\r\t\u{0}\u{1}\u{1f}\u{7f}é€😀 {}:,".unicodeScalars)
        let text = Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...12)
            .map { String(String.UnicodeScalarView($0.map { alphabet[$0] })) }
        await propertyCheck(count: 2000, input: text.array(of: 0...12)) { strings in
            var fields = [String: String]()
            for pair in stride(from: 0, to: strings.count - 1, by: 2) { fields[strings[pair]] = strings[pair + 1] }
            let line = JSONLogLine.encode(fields)
            // One line: the only newline is the last byte, whatever the values hold.
            #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A && $0 != 0x0D })
            let parsed = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: String]
            #expect(parsed == fields, "\(String(decoding: line, as: UTF8.self).debugDescription)")
            // Keys in sorted order, as JSONEncoder's .sortedKeys wrote them before: the line is
            // its fields' one-field lines, sorted by key, joined.
            let members = fields.keys.sorted().map { JSONLogLine.encode([$0: fields[$0]!]).dropFirst().dropLast(2) }
            #expect(line == Array("{".utf8) + Array(members.joined(separator: [UInt8(ascii: ",")])) + Array("}\n".utf8))
        }
    }

    @Test func durationsAreMillisecondsToTwoPlaces() {
        #expect(RequestLogMiddleware.milliseconds(.zero) == "0.00")
        #expect(RequestLogMiddleware.milliseconds(.microseconds(4)) == "0.00")
        #expect(RequestLogMiddleware.milliseconds(.microseconds(5)) == "0.01")
        #expect(RequestLogMiddleware.milliseconds(.microseconds(1_234)) == "1.23")
        #expect(RequestLogMiddleware.milliseconds(.microseconds(1_995)) == "2.00")
        #expect(RequestLogMiddleware.milliseconds(.milliseconds(90)) == "90.00")
        #expect(RequestLogMiddleware.milliseconds(.seconds(12) + .microseconds(345_670)) == "12345.67")
    }

    @Test func theWriterKeepsTheLinesInOrder() throws {
        let pipe = Pipe()
        let writer = LogLineWriter(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        let lines = (0..<2_000).map { Array("line \($0)\n".utf8) }
        for line in lines { writer.write(line) }
        #expect(writer.flush())
        try pipe.fileHandleForWriting.close()
        #expect(Array(pipe.fileHandleForReading.readDataToEndOfFile()) == lines.flatMap { $0 })
    }

    @Test func aStalledOutputCostsLinesNotTheLoggingTask() throws {
        // Nobody reads the pipe until every line has been handed over: the writer's write(2)
        // blocks once the pipe's buffer (64 KiB) is full, and its own buffer (4 KiB) then fills.
        let pipe = Pipe()
        let writer = LogLineWriter(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor, capacity: 4_096)
        let lines = (0..<20_000).map { Array(String(format: "line %05d\n", $0).utf8) }
        for line in lines { writer.write(line) }  // returns: a blocking write would hang here
        // Reading frees the writer; everything it accepted comes out, in order, then a count of the rest.
        let reader = pipe.fileHandleForReading
        let received = NIOLockedValueBox(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread {
            received.withLockedValue { $0 = reader.readDataToEndOfFile() }
            drained.signal()
        }.start()
        #expect(writer.flush())
        try pipe.fileHandleForWriting.close()
        drained.wait()
        // What was accepted comes out in order; each run of dropped lines is counted after the
        // lines accepted before it.
        let text = String(decoding: received.withLockedValue { $0 }, as: UTF8.self)
        var written = [Int]()
        var dropped = 0
        for line in text.split(separator: "\n") {
            if line.hasPrefix("line ") {
                written.append(Int(line.dropFirst(5)) ?? -1)
            } else {
                let notice = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "\(line)")
                #expect(notice["msg"]?.hasPrefix("log lines dropped") == true)
                dropped += Int(notice["dropped"] ?? "") ?? 0
            }
        }
        #expect(written.count < lines.count, "the pipe and the buffer cannot have held all 20 000 lines")
        #expect(written == written.sorted() && Set(written).count == written.count && written.first == 0)
        #expect(dropped == lines.count - written.count)
    }

    @Test func aLineLargerThanTheBufferIsCountedAtOnce() throws {
        let pipe = Pipe()
        let writer = LogLineWriter(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor, capacity: 16)
        writer.write(Array(String(repeating: "x", count: 40).utf8) + [0x0A])
        #expect(writer.flush(waitingAtMost: 60), "the writer slept on a dropped line")
        try pipe.fileHandleForWriting.close()
        let notice = try JSONSerialization.jsonObject(with: pipe.fileHandleForReading.readDataToEndOfFile()) as? [String: String]
        #expect(notice?["dropped"] == "1")
    }

    @Test func auditLinesAreNeverDroppedAndAreOutWhenTheCallReturns() throws {
        let pipe = Pipe()
        let writer = LogLineWriter(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor, capacity: 4_096)
        for number in 0..<20_000 { writer.write(Array("line \(number)\n".utf8)) }  // the pipe and the buffer are full
        let audit = Array(#"{"audit":"admin"}"#.utf8) + [0x0A]
        let written = DispatchSemaphore(value: 0)
        Thread {
            writer.write(audit, essential: true)
            written.signal()
        }.start()
        // Only once somebody reads does it get out; then the call returns. (The pause lets the
        // audit line meet the full buffer; were it later, the test would only be weaker.)
        Thread.sleep(forTimeInterval: 0.3)
        let received = NIOLockedValueBox(Data())
        let reader = pipe.fileHandleForReading
        let drained = DispatchSemaphore(value: 0)
        Thread {
            received.withLockedValue { $0 = reader.readDataToEndOfFile() }
            drained.signal()
        }.start()
        written.wait()
        #expect(writer.flush())
        try pipe.fileHandleForWriting.close()
        drained.wait()
        let text = String(decoding: received.withLockedValue { $0 }, as: UTF8.self)
        #expect(text.split(separator: "\n").contains(#"{"audit":"admin"}"#))
    }

    @Test func everyRequestLeavesAnAccessLogLine() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        let lines = NIOLockedValueBox<[[String: String]]>([])
        let logger = Logger(label: "ridebeacon") { label in
            JSONLogHandler(label: label) { line in
                let fields = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: String]
                lines.withLockedValue { $0.append(fields ?? ["unparsed": String(decoding: line, as: UTF8.self)]) }
            }
        }
        try await world.app(logger: logger).test(.live) { client in
            let answer = try await client.call(.get, "/v1/rides/\(ride.id)", as: world.driver, headers: ["X-Request-ID": "trace-42"])
            #expect(answer.status == .ok)
        }
        let access = try #require(lines.withLockedValue { $0 }.first { $0["msg"] == "request" })
        #expect(access["http.route"] == "/v1/rides/{id}" && access["http.method"] == "GET" && access["http.status"] == "200")
        #expect(access["hb.request.id"] == "trace-42" && access["level"] == "info" && access["label"] == "ridebeacon")
        #expect(access["duration_ms"].map { $0.wholeMatch(of: /[0-9]+\.[0-9]{2}/) != nil } == true, "\(access)")
        #expect(access["ts"].map { $0.wholeMatch(of: /20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z/) != nil } == true, "\(access)")
    }
}
