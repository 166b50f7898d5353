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

    /// The IMF-fixdate reader agrees with the token reader: on formatted dates across the years, and
    /// on every one-byte change of one, where it either reads the same date or leaves the text to
    /// the token reader.
    @Test func fixedPositionReaderAgreesWithTheTokenReader() {
        let replacements: [UInt8] = Array(" ,\t:-+0159AZaz".utf8) + [0x00, 0x7F, 0xC3]
        for seconds in stride(from: -62_135_596_800.0, to: 253_402_300_799, by: 86_400 * 97.3 + 3_671) {
            let text = HTTPDate.format(Date(timeIntervalSince1970: seconds.rounded(.down)))
            #expect(HTTPDate.fixdate(text.utf8) == HTTPDate.parseTokens(text), "\(text)")
            #expect(HTTPDate.fixdate(text.utf8) != nil, "\(text)")
        }
        let text = "Sun, 06 Nov 1994 08:49:37 GMT"
        for index in text.utf8.indices {
            for byte in replacements {
                var bytes = Array(text.utf8)
                bytes[text.utf8.distance(from: text.utf8.startIndex, to: index)] = byte
                let mutated = String(decoding: bytes, as: UTF8.self)
                if let date = HTTPDate.fixdate(mutated.utf8) {
                    #expect(date == HTTPDate.parseTokens(mutated), "\(mutated)")
                }
                #expect(HTTPDate.parse(mutated) == HTTPDate.parseTokens(mutated), "\(mutated)")
            }
        }
    }
}
