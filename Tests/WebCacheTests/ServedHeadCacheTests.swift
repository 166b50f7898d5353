import CacheStore
import Foundation
import HTTPCaching
import HTTPCore
import Testing

@testable import WebCache

/// The head a hit serves, worked out once per entry, is the one worked out from what the entry holds
/// now: its fields, times and coding, under the same id.
@Suite struct ServedHeadCacheTests {
    static let received = Date(timeIntervalSince1970: 1_800_000_000)

    private func entry(_ headers: HTTPHeaders, receivedAt responseTime: Date = received, decodedFrom: String? = nil)
        -> CacheEntry
    {
        var entry = CacheEntry(
            url: "https://example.test/a", status: 200, headers: headers,
            requestTime: responseTime.addingTimeInterval(-1), responseTime: responseTime,
            freshUntil: responseTime.addingTimeInterval(600))
        entry.id = 3
        entry.decodedFrom = decodedFrom
        return entry
    }

    @Test func worksOutTheHeadAgainWhenTheEntryChanges() {
        let heads = ServedHeadCache()
        let date = HTTPDate.format(Self.received)
        let fields: HTTPHeaders = [
            "Date": date, "ETag": "\"v1\"", "Set-Cookie": "a=1", "Connection": "x-hop", "X-Hop": "1",
        ]
        let first = heads.head(of: entry(fields))
        #expect(first.served == ["Date": date, "ETag": "\"v1\""])
        #expect(first.initialAge == 1)
        // Kept: the same fields give the same served fields.
        #expect(heads.head(of: entry(fields)).served == first.served)

        // Each input changed under the same id.
        #expect(heads.head(of: entry(fields, decodedFrom: "gzip")).served == ["Date": date, "ETag": "W/\"v1\""])
        var aged = fields
        aged["Age"] = "100"
        #expect(heads.head(of: entry(aged)).initialAge == 101)
        let later = heads.head(of: entry(fields, receivedAt: Self.received.addingTimeInterval(30)))
        #expect(later.initialAge == 30)
        var retagged = fields
        retagged["ETag"] = "\"v2\""
        #expect(heads.head(of: entry(retagged)).served == ["Date": date, "ETag": "\"v2\""])
        #expect(heads.head(of: entry(fields)).served == first.served)
    }

    @Test func givesTheRulesCorrectedInitialAge() {
        let heads = ServedHeadCache()
        for (dateOffset, age) in [(0.0, nil), (-50, nil), (200, nil), (0, "30"), (200, "5")] as [(Double, String?)] {
            var fields: HTTPHeaders = ["Date": HTTPDate.format(Self.received.addingTimeInterval(-dateOffset))]
            if let age { fields["Age"] = age }
            let stored = entry(fields)
            #expect(heads.head(of: stored).initialAge == StoredResponse.correctedInitialAge(
                headers: fields, requestTime: stored.requestTime, responseTime: stored.responseTime))
        }
    }

    /// A hit's fields set `Age` and `Content-Length` where the head found their lines, as the
    /// subscripts would: in place, appended, or every line of a repeated name replaced by one.
    @Test func servesAgeAndLengthAsTheSubscriptsSetThem() {
        let shapes: [HTTPHeaders] = [
            ["Content-Type": "text/plain"],
            ["Age": "7", "Content-Type": "text/plain", "Content-Length": "12"],
            ["content-length": "12", "Content-Type": "text/plain", "AGE": "7"],
            ["Age": "7", "Content-Type": "text/plain", "age": "9"],
            ["Content-Length": "12", "Content-Type": "text/plain", "Content-Length": "12", "Age": "1"],
            ["Content-Encoding": "gzip", "Content-Encoding": "br", "Content-Length": "40"],
        ]
        for fields in shapes {
            let head = ServedHeadCache().head(of: entry(fields))
            for (age, length) in [(0.0, nil), (42.9, nil), (0, "12"), (42, "4096"), (3, "40")] as [(Double, String?)] {
                var expected = head.served
                if age > 0 { expected["Age"] = String(Int(age)) }
                if let length { expected["Content-Length"] = length }
                #expect(head.headers(age: age, contentLength: length).fields == expected.fields,
                        "fields \(fields.fields), age \(age), length \(length ?? "none")")
            }
            #expect(head.coding == head.served["Content-Encoding"])
        }
    }
}
