import Foundation
import Testing

@testable import Sessions

/// RFC 6265 §5.1.1 cookie dates.
struct CookieDateTests {
    static let accepted: [(String, TimeInterval)] = [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),  // IMF-fixdate, through HTTPDate
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),  // RFC 850
        ("Sun Nov  6 08:49:37 1994", 784_111_777),  // asctime
        ("Sun, 06-Nov-1994 08:49:37 GMT", 784_111_777),  // Netscape form, four-digit year
        ("06 Nov 1994 08:49:37", 784_111_777),  // no weekday, no zone
        ("Nov 6 1994 8:49:37 GMT", 784_111_777),  // one-digit hour and day
        ("Sun, 06 nov 94 08:49:37 UTC", 784_111_777),  // lowercase month, two-digit year ≥ 70 → 19xx
        ("Thu, 01-Jan-26 00:00:00 GMT", 1_767_225_600),  // two-digit year < 70 → 20xx
        ("Thu, 29 Feb 2024 12:00:00 GMT", 1_709_208_000),  // leap day
    ]

    @Test(arguments: accepted)
    func parsesLenientDates(text: String, expected: TimeInterval) throws {
        let date = try #require(CookieDate.parse(text))
        #expect(date.timeIntervalSince1970 == expected)
    }

    @Test(arguments: [
        "",
        "tomorrow",
        "Sun, 06 Nov 1994",  // no time
        "Sun, 32 Nov 1994 08:49:37 GMT",  // day out of range
        "Sun, 06 Nov 1600 08:49:37 GMT",  // year before 1601
        "Sun, 06 Nov 1994 24:00:00 GMT",  // hour out of range
        "Fri, 30 Feb 2024 12:00:00 GMT",  // no such day
        "Sun, 06 Xyz 1994 08:49:37 GMT",  // no month
    ])
    func rejectsUnusableDates(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }
}
