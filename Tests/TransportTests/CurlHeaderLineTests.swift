import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import Transport

/// How ``CurlTransport`` reads the lines of a response head: ordinary `name: value` lines from their
/// bytes, every other line by the general path, with the fields either way as they were when each
/// line was first made a string.
@Suite struct CurlHeaderLineTests {
    /// What a field line gave when the whole line was decoded first: the name up to the first colon,
    /// the value after it without surrounding spaces and tabs.
    private func referenceField(_ line: [UInt8]) -> HTTPField? {
        let text = String(decoding: line, as: UTF8.self)
        guard !text.hasPrefix("HTTP/"), text.first != " ", text.first != "\t",
            let colon = text.firstIndex(of: ":")
        else { return nil }
        return HTTPField(name: String(text[..<colon]),
                         value: text[text.index(after: colon)...].trimmingHTTPWhitespace())
    }

    private func field(_ line: [UInt8]) -> HTTPField? {
        line.withUnsafeBytes { CurlTransfer.field(in: $0) }
    }

    @Test(arguments: [
        "Content-Type: text/plain", "X-Empty:", "X-Spaces: \t a b \t ", "X-Colons: a:b:c", ":no-name",
        "Name:value", "HTTP/1.1 200 OK", "HTTPX: y", " X-Folded: y", "\tX-Folded: y", "no colon here", "",
    ])
    func readsALineAsTheWholeLineWasRead(line: String) {
        #expect(field(Array(line.utf8)) == referenceField(Array(line.utf8)))
    }

    @Test
    func readsInvalidUTF8AsTheWholeLineWasRead() {
        let lines: [[UInt8]] = [
            [0x58, 0xC3, 0x3A, 0x20, 0xFF, 0x61], [0xE2, 0x82, 0x3A, 0xE2, 0x82], [0x41, 0x3A, 0x20, 0xC3, 0xA9, 0x20],
            [0xC3, 0x3A, 0x3A], [0x3A, 0x80],
        ]
        for line in lines {
            #expect(field(line) == referenceField(line), "\(line)")
        }
    }

    @Test
    func agreesWithTheWholeLineOnRandomLines() {
        var generator = SeededGenerator(seed: 29)
        let pieces: [[UInt8]] = [
            Array("HTTP/".utf8), [0x20], [0x09], [0x3A], Array("ab".utf8), Array("X-Y".utf8), [0xC3], [0xA9], [0xFF],
            [0x80], Array("é".utf8), Array("1".utf8),
        ]
        for _ in 0..<20_000 {
            var line: [UInt8] = []
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                line += pieces.randomElement(using: &generator)!
            }
            #expect(field(line) == referenceField(line), "\(line)")
        }
    }

    /// What a status line gave when the whole line was decoded and split at its spaces.
    private func referenceStatusLine(_ line: [UInt8]) -> StatusLine? {
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("HTTP/") else { return nil }
        let parts = text.split(separator: " ", maxSplits: 2)
        return StatusLine(version: String(parts[0]), status: parts.count > 1 ? Int(parts[1]) : nil)
    }

    private func statusLine(_ line: [UInt8]) -> StatusLine? {
        line.withUnsafeBytes { CurlTransfer.statusLine(in: $0) }.map { StatusLine(version: $0.version, status: $0.status) }
    }

    private struct StatusLine: Equatable {
        var version: String
        var status: Int?
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK", "HTTP/2 404", "HTTP/1.1 204", "HTTP/1.1  301  Moved  Permanently", "HTTP/1.1",
        "HTTP/1.1 ", "HTTP/1.0 +200 OK", "HTTP/1.1 2x0 OK", "HTTP/1.1 99999999999999999999 Big", "HTTP/",
        "HTTPX 200", " HTTP/1.1 200", "Content-Type: text/plain", "",
    ])
    func readsAStatusLineAsTheWholeLineWasRead(line: String) {
        #expect(statusLine(Array(line.utf8)) == referenceStatusLine(Array(line.utf8)))
    }

    @Test
    func readsStatusLinesAsTheWholeLineOnRandomLines() {
        var generator = SeededGenerator(seed: 31)
        let pieces: [[UInt8]] = [
            [0x20], [0x20, 0x20], [0x09], Array("200".utf8), Array("1".utf8), Array("-".utf8), Array("+".utf8),
            Array("OK".utf8), [0xC3], [0xFF], Array("é".utf8), [0x3A],
        ]
        for _ in 0..<20_000 {
            var line = Array("HTTP/".utf8)
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                line += pieces.randomElement(using: &generator)!
            }
            #expect(statusLine(line) == referenceStatusLine(line), "\(line)")
        }
    }

    /// A head with every kind of line libcurl passes on (it refuses a line without a colon itself),
    /// through a real transfer: the fields come out as written.
    @Test
    func aResponseHeadWithEveryKindOfLineKeepsItsFields() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Spaces: \t a b \t \r\nX-Empty:\r\nX-Folded: one\r\n"
            + " two\r\nX-Colons: a:b:c\r\nX-Last: z\r\n\r\nok"
        let server = OriginServer { _ in OriginResponse(body: .raw { socket in try socket.write(head) }) }
        try server.start()
        defer { server.stop() }
        let transport = try CurlTransport(configuration: CurlTransport.Configuration())
        let (response, body) = try await transport.fetch(HTTPRequest(url: server.url("head")))
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")
        let fields = response.head.headers.map { "\($0.name)=\($0.value)" }
        #expect(fields == [
            "Content-Length=2", "X-Spaces=a b", "X-Empty=", "X-Folded=one two", "X-Colons=a:b:c", "X-Last=z",
        ])
    }

    /// Requests started all at once, from as many tasks, while the loop is busy with the others: each
    /// command reaches the loop, also those queued behind one whose wakeup is still pending.
    @Test
    func aBurstOfRequestsStartedAtOnceAllComeBack() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try CurlTransport(configuration: CurlTransport.Configuration())
        let total = 300
        let right = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<total {
                group.addTask {
                    let (response, body) = try await transport.fetch(HTTPRequest(url: server.url("n/\(index)")))
                    return response.head.status == 200 && String(decoding: body, as: UTF8.self) == "n=\(index)"
                }
            }
            var right = 0
            for try await correct in group where correct { right += 1 }
            return right
        }
        #expect(right == total)
        #expect(server.requestCount == total)
    }
}
