import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import HTTPCaching

/// Range requests answered from a complete stored response (RFC 9110 §14, §13.1.5).
struct RangeRequestTests {
    // MARK: - Parsing `Range` (§14.1.1, §14.1.2)

    @Test(arguments: [
        ("§14.1.2 first and last", "bytes=0-499", [RangeSpec.from(0, to: 499)]),
        ("§14.1.2 open-ended", "bytes=9500-", [.from(9500, to: nil)]),
        ("§14.1.2 suffix", "bytes=-500", [.suffix(500)]),
        ("§14.1.2 several", "bytes=0-0,-1", [.from(0, to: 0), .suffix(1)]),
        ("§14.1.1 the unit is case-insensitive", "Bytes=1-2", [.from(1, to: 2)]),
        ("§5.6.1 whitespace around commas", "bytes=1-2 , 4-5", [.from(1, to: 2), .from(4, to: 5)]),
        ("§5.6.1 empty list members are ignored", "bytes=,1-2,,", [.from(1, to: 2)]),
        ("§14.1.2 a position past 64 bits saturates", "bytes=1-99999999999999999999", [.from(1, to: .max)]),
    ])
    func parsesValidRanges(rule: String, value: String, expected: [RangeSpec]) {
        #expect(RangeRequest.parse(value) == expected, "\(rule)")
    }

    @Test(arguments: [
        ("§14.1.1 another unit", "items=0-1"),
        ("§14.1.1 no unit", "0-1"),
        ("§14.1.1 no range", "bytes="),
        ("§14.1.1 last before first", "bytes=5-1"),
        ("§14.1.1 a negative position", "bytes=--5"),
        ("§14.1.1 a space inside a range", "bytes=0 -1"),
        ("§14.1.1 a space before the '='", "bytes =0-1"),
        ("§14.1.1 a sign", "bytes=+1-2"),
        ("§14.1.1 no dash", "bytes=5"),
        ("§14.1.1 one bad member spoils the field", "bytes=0-1,x"),
        ("§14.1.1 a fraction", "bytes=0.5-1"),
    ])
    func refusesInvalidRanges(rule: String, value: String) {
        #expect(RangeRequest.parse(value) == nil, "\(rule)")
    }

    // MARK: - Resolving against a length (§14.1.1, §14.2)

    struct AnswerCase: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var range: String
        var expected: RangeRequest.Answer
    }

    static func span(_ first: Int64, _ last: Int64) -> ByteRange { ByteRange(first: first, last: last) }

    @Test(arguments: [
        AnswerCase(testDescription: "§14.1.2 the first 500 bytes", range: "bytes=0-499",
                   expected: .partial([span(0, 499)])),
        AnswerCase(testDescription: "§14.1.2 the second 500 bytes", range: "bytes=500-999",
                   expected: .partial([span(500, 999)])),
        AnswerCase(testDescription: "§14.1.2 the last 500 bytes as a suffix", range: "bytes=-500",
                   expected: .partial([span(9500, 9999)])),
        AnswerCase(testDescription: "§14.1.2 the last 500 bytes open-ended", range: "bytes=9500-",
                   expected: .partial([span(9500, 9999)])),
        AnswerCase(testDescription: "§14.1.2 the first and last bytes only", range: "bytes=0-0,-1",
                   expected: .partial([span(0, 0), span(9999, 9999)])),
        AnswerCase(testDescription: "§14.2 parts keep the client's order", range: "bytes=900-999,0-99",
                   expected: .partial([span(900, 999), span(0, 99)])),
        AnswerCase(testDescription: "§14.1.2 overlapping ranges are coalesced", range: "bytes=500-700,601-999",
                   expected: .partial([span(500, 999)])),
        AnswerCase(testDescription: "§14.2 adjacent ranges are coalesced", range: "bytes=500-600,601-999",
                   expected: .partial([span(500, 999)])),
        AnswerCase(testDescription: "§14.2 coalescing sorts", range: "bytes=900-999,0-99,50-60",
                   expected: .partial([span(0, 99), span(900, 999)])),
        AnswerCase(testDescription: "§14.1.1 a last position past the end is cut", range: "bytes=9000-20000",
                   expected: .partial([span(9000, 9999)])),
        AnswerCase(testDescription: "§14.1.1 a suffix longer than the content is all of it", range: "bytes=-20000",
                   expected: .partial([span(0, 9999)])),
        AnswerCase(testDescription: "§14.2 bytes=0- is a 206 of everything", range: "bytes=0-",
                   expected: .partial([span(0, 9999)])),
        AnswerCase(testDescription: "§14.2 several ranges making the whole are a 200", range: "bytes=0-4999,5000-",
                   expected: .whole),
        AnswerCase(testDescription: "§14.1.1 a first position at the end is unsatisfiable", range: "bytes=10000-",
                   expected: .unsatisfiable),
        AnswerCase(testDescription: "§14.1.1 a zero-length suffix is unsatisfiable", range: "bytes=-0",
                   expected: .unsatisfiable),
        AnswerCase(testDescription: "§14.1.1 unsatisfiable ranges are dropped", range: "bytes=20000-,0-9",
                   expected: .partial([span(0, 9)])),
        AnswerCase(testDescription: "§14.2 an invalid field is ignored", range: "bytes=9-1", expected: .whole),
        AnswerCase(testDescription: "§14.2 another unit is ignored", range: "lines=1-2", expected: .whole),
        AnswerCase(testDescription: "§14.2 too many ranges are ignored",
                   range: "bytes=" + (0..<101).map { "\($0 * 2)-\($0 * 2)" }.joined(separator: ","),
                   expected: .whole),
    ])
    func answersFromTheLength(example: AnswerCase) {
        let response = stored([("ETag", #""v1""#)])
        let ranged = request([("Range", example.range)])
        #expect(RangeRequest.answer(request: ranged, stored: response, length: 10_000) == example.expected)
    }

    @Test func onlyAGetForA200HasRanges() {
        // §14.2: Range applies to GET; other methods and other statuses are answered as they are.
        let range = [("Range", "bytes=0-1")]
        #expect(RangeRequest.answer(request: request(range, method: .head), stored: stored([]), length: 10) == .whole)
        #expect(RangeRequest.answer(request: request(range), stored: stored([], status: 404), length: 10) == .whole)
        #expect(RangeRequest.answer(request: request(), stored: stored([]), length: 10) == .whole)
        #expect(RangeRequest.answer(request: request(range), stored: stored([]), length: 0) == .unsatisfiable)
    }

    @Test func ofAnEmptyRepresentationOnlyASuffixIsSatisfiableAndItIsAnsweredWhole() {
        // §14.1.1: a suffix of some bytes is satisfiable, and selects nothing a 206 could name.
        let answer = { (field: String) in
            RangeRequest.answer(request: request([("Range", field)]), stored: stored([]), length: 0)
        }
        #expect(answer("bytes=-5") == .whole)
        #expect(answer("bytes=0-0,-1") == .whole)
        #expect(answer("bytes=0-") == .unsatisfiable)
        #expect(answer("bytes=-0") == .unsatisfiable)
    }

    // MARK: - If-Range (§13.1.5)

    @Test(arguments: [
        ("§13.1.5 the same strong tag", [("ETag", #""v1""#)], #""v1""#, true),
        ("§13.1.5 another tag", [("ETag", #""v1""#)], #""v2""#, false),
        ("§13.1.5 a weak tag never matches", [("ETag", #"W/"v1""#)], #"W/"v1""#, false),
        ("§13.1.5 a weak stored tag never matches", [("ETag", #"W/"v1""#)], #""v1""#, false),
        ("§13.1.5 no stored tag", [], #""v1""#, false),
        ("§13.1.5 the Last-Modified date, strong", [("Last-Modified", httpDate(-3600))], httpDate(-3600), true),
        ("§8.8.2.2 a date less than 60 s before Date is weak", [("Last-Modified", httpDate(-30))], httpDate(-30),
         false),
        ("§13.1.5 another date", [("Last-Modified", httpDate(-3600))], httpDate(-3000), false),
        ("§8.8.3 a weak stored tag makes the date weak too", [("Last-Modified", httpDate(-3600)),
                                                             ("ETag", #"W/"v1""#)], httpDate(-3600), false),
        ("§13.1.5 a strong stored tag leaves the date strong", [("Last-Modified", httpDate(-3600)),
                                                               ("ETag", #""v1""#)], httpDate(-3600), true),
        ("§13.1.5 no Last-Modified", [], httpDate(-3600), false),
        ("§13.1.5 neither a tag nor a date", [("ETag", #""v1""#)], "v1", false),
    ])
    func ifRange(rule: String, fields: [(String, String)], condition: String, holds: Bool) {
        let response = stored(fields)
        #expect(RangeRequest.ifRangeHolds(condition, stored: response) == holds, "\(rule)")
        let ranged = request([("Range", "bytes=0-9"), ("If-Range", condition)])
        let expected: RangeRequest.Answer = holds ? .partial([ByteRange(first: 0, last: 9)]) : .whole
        #expect(RangeRequest.answer(request: ranged, stored: response, length: 100) == expected, "\(rule)")
    }

    // MARK: - Content-Range (§14.4)

    @Test(arguments: [
        ("§14.4 a span and the length", "bytes 0-499/1234", ContentRange(range: ByteRange(first: 0, last: 499),
                                                                         completeLength: 1234)),
        ("§14.4 an unknown length", "bytes 42-1233/*", ContentRange(range: ByteRange(first: 42, last: 1233),
                                                                    completeLength: nil)),
        ("§14.4 unsatisfied-range", "bytes */1234", ContentRange(range: nil, completeLength: 1234)),
    ])
    func parsesAndWritesContentRange(rule: String, value: String, expected: ContentRange) {
        #expect(ContentRange(parsing: value) == expected, "\(rule)")
        #expect(expected.description == value, "\(rule)")
    }

    @Test(arguments: [
        "bytes 5-1/10", "bytes 0-10/10", "bytes */*", "items 0-1/2", "bytes 0-1", "bytes -1-2/3", "bytes 0-1/x",
        "bytes=0-1/2",
    ])
    func refusesInvalidContentRange(value: String) {
        #expect(ContentRange(parsing: value) == nil, "§14.4: '\(value)' is invalid")
    }

    // MARK: - multipart/byteranges (§14.6)

    @Test func framesSeveralParts() {
        let body = MultipartByteRanges(
            ranges: [ByteRange(first: 0, last: 1), ByteRange(first: 8, last: 9)], completeLength: 10,
            contentType: "text/plain", boundary: "B")
        let parts: [Data] = [body.partHead(0), Data("ab".utf8), body.partHead(1), Data("ij".utf8), body.closing]
        let text = String(decoding: parts.reduce(Data(), +), as: UTF8.self)
        #expect(text == "--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/10\r\n\r\nab"
                + "\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 8-9/10\r\n\r\nij\r\n--B--\r\n")
        #expect(body.contentLength == Int64(text.utf8.count))
        #expect(body.contentTypeValue == "multipart/byteranges; boundary=B")
        #expect(MultipartByteRanges(ranges: [], completeLength: 1, contentType: nil).boundary.count > 20)
    }

    // MARK: - Hostile input

    @Test func randomFieldValuesNeverBreakTheParsers() {
        // A fixed linear congruential sequence: the same 20,000 values on every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        let alphabet = Array("bytes=-0123456789, */\t\"W".utf8)
        for _ in 0..<20_000 {
            let text = String(decoding: (0..<next() % 24).map { _ in alphabet[next() % alphabet.count] }, as: UTF8.self)
            for spec in RangeRequest.parse(text) ?? [] {
                if let range = spec.resolved(length: 1_000) { #expect(range.last < 1_000, "\(text)") }
            }
            if let value = ContentRange(parsing: text), let range = value.range, let length = value.completeLength {
                #expect(range.last < length, "\(text)")
            }
            #expect(HTTPDate.parseStrictly(text) == nil, "\(text)")
        }
        #expect(RangeSpec.from(5, to: 1).resolved(length: 10) == nil)
        #expect(RangeSpec.from(-1, to: nil).resolved(length: 10) == nil)
    }

    // MARK: - Hop-by-hop fields (RFC 9110 §7.6.1, RFC 9111 §3.1)

    @Test(arguments: [
        ("Connection", true), ("Keep-Alive", true), ("TE", true), ("Transfer-Encoding", true), ("Upgrade", true),
        ("Trailer", true), ("Proxy-Authenticate", true), ("Proxy-Authorization", true),
        ("Proxy-Authentication-Info", true), ("Proxy-Connection", true), ("proxy-anything", true), ("PROXY-X", true),
        ("X-Named-By-Connection", true), ("ETag", false), ("Content-Length", false), ("Proxy", false),
        ("X-Proxy-Id", false), ("tE", true), ("UPGRADE", true), ("keep-ALIVE", true), ("TRANSFER-encoding", true),
        ("Tk", false), ("Expires", false), ("Set-Cookie", false), ("If-Modified-Since", false),
    ])
    func hopByHopFields(name: String, removed: Bool) {
        let fields = headers([("Connection", "X-Named-By-Connection"), (name, "v"), ("Date", httpDate(0))])
        let kept = HopByHopFields.removed(from: fields)
        #expect(kept.contains(name) == !removed, "\(name)")
        #expect(kept.contains("Date"))
    }

    /// On 3,000 random field lists (names of every hop-by-hop kind and of none, in any case, and
    /// `Connection` lines listing some of them, quoted or with spaces), what is removed is what
    /// the set of hop-by-hop names (``HopByHopFields/names(in:)``) names.
    @Test func hopByHopFieldsRemovedAreThoseTheirNamesName() {
        var generator = SeededGenerator(seed: 7230)
        let names = ["Connection", "TE", "Trailer", "Upgrade", "Keep-Alive", "Transfer-Encoding", "Proxy-X", "Date",
                     "ETag", "X-A", "X-B", "Tk", "Expires", "Set-Cookie", "If-Modified-Since", "Proxy"]
        let options = ["x-a", "X-B", " x-a ", "\"x-b\"", "etag", "", "Date", "x-a, x-b", "\tX-B\t"]
        func cased(_ name: String) -> String {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: name.lowercased()
            case 1: name.uppercased()
            default: name
            }
        }
        for round in 0..<3_000 {
            var fields: [(String, String)] = []
            for _ in 0..<Int.random(in: 0...7, using: &generator) {
                let name = cased(names.randomElement(using: &generator)!)
                let value = name.caseInsensitiveEquals("Connection")
                    ? (0..<Int.random(in: 1...3, using: &generator))
                        .map { _ in options.randomElement(using: &generator)! }.joined(separator: ",")
                    : "v"
                fields.append((name, value))
            }
            let all = headers(fields)
            let named = HopByHopFields.names(in: all)
            let expected = HTTPHeaders(all.fields.filter { !named.contains($0.name.lowercased()) })
            #expect(HopByHopFields.removed(from: all) == expected, "\(round): \(fields)")
        }
    }

    /// The options of every `Connection` line name fields whatever their case, each option whole.
    @Test func connectionOptionsNameFieldsWithoutRegardToCase() {
        let fields = headers([
            ("Connection", "close, x-trace"), ("X-TRACE", "1"), ("x-trace", "2"), ("X-Trace-Id", "3"),
            ("connection", "X-Other"), ("x-other", "4"), ("Date", httpDate(0)),
        ])
        #expect(HopByHopFields.removed(from: fields) == headers([("X-Trace-Id", "3"), ("Date", httpDate(0))]))
    }

    /// `Connection: keep-alive`, read without splitting its value, removes itself and `Keep-Alive`
    /// in any case and leaves every other field, as a list naming more options does.
    @Test func connectionKeepAliveRemovesOnlyHopByHopFields() {
        for value in ["keep-alive", "Keep-Alive", "keep-alive, x-trace"] {
            let fields = headers([
                ("Date", httpDate(0)), ("Connection", value), ("KEEP-ALIVE", "timeout=5"), ("X-Trace", "1"),
                ("Cache-Control", "max-age=60"),
            ])
            let kept: [(String, String)] = value.contains("x-trace") ? [] : [("X-Trace", "1")]
            #expect(
                HopByHopFields.removed(from: fields)
                    == headers([("Date", httpDate(0))] + kept + [("Cache-Control", "max-age=60")]), "\(value)")
        }
    }

    /// Fields without any hop-by-hop one come back as they were, order and repeats kept; one such
    /// field without `Connection`, or a `proxy-` one, still goes.
    @Test func hopByHopFieldsAreFoundWithoutAConnectionField() {
        let plain = headers([("Date", httpDate(0)), ("Vary", "a"), ("Vary", "b"), ("X-Trailer-Id", "1")])
        #expect(HopByHopFields.removed(from: plain) == plain)
        for name in ["keep-alive", "TRAILER", "Proxy-Connection"] {
            let fields = headers([("Date", httpDate(0)), (name, "v"), ("ETag", "\"e\"")])
            #expect(HopByHopFields.removed(from: fields) == headers([("Date", httpDate(0)), ("ETag", "\"e\"")]), "\(name)")
        }
    }
}
