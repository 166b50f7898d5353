import Foundation
import Testing

@testable import HTTPCore

struct HTTPDateTests {
    // RFC 9110 §5.6.7: all three forms name the same instant.
    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
    ])
    func parsesTheThreeForms(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test(arguments: ["", "0", "-1", "tomorrow", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT",
                      "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 PST",
                      "Mon, 30 Feb 2026 00:00:00 GMT", "Thu, 31 Apr 2026 00:00:00 GMT", "Sat, 29 Feb 2025 00:00:00 GMT"])
    func rejectsInvalidDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test(arguments: [0.0, 784_111_777, 951_782_400, 1_700_000_000, -86_400])
    func formatRoundTrips(seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let text = HTTPDate.format(date)
        #expect(try #require(HTTPDate.parse(text)) == date)
    }

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }
}
