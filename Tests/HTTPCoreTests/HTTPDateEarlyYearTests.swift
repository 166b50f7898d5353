import Foundation
import Testing

@testable import HTTPCore

/// Years before 1000 are written with four digits, so that what `format` writes, `parse` reads.
struct HTTPDateEarlyYearTests {
    @Test(arguments: [
        ("Wed, 08 Jan 0003 23:29:47 GMT", -62_071_835_413.0),
        ("Mon, 14 Oct 0678 17:01:36 GMT", -40_746_783_504.0),
        ("Mon, 01 Jan 0001 00:00:00 GMT", -62_135_596_800.0),
    ])
    func earlyYearsRoundTrip(text: String, seconds: TimeInterval) throws {
        let date = try #require(HTTPDate.parse(text))
        #expect(date == Date(timeIntervalSince1970: seconds))
        #expect(HTTPDate.format(date) == text)
        #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
    }
}
