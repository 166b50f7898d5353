import Archive
import Foundation
import Testing

/// HAR dates as Foundation's `ISO8601DateFormatter` wrote them (milliseconds rounded half up), and
/// read back with or without a fraction.
@Suite struct HARDateTests {
    @Test(arguments: [
        0, 1.5, 0.9995, 1.0009999, -1.5, 1_764_605_759.123, 1_764_605_759.1239999, 1_764_605_759.9999,
        1e9 + 0.0005, 86_399.9999, -2_361_101_435.2105, 4_102_444_800.5,
    ])
    func formatsAsISO8601DateFormatter(_ seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(HARDate.format(date) == formatter.string(from: date))
    }

    @Test(arguments: [
        "2026-11-01T10:00:01.000Z", "2026-11-01T10:00:01Z", "2026-11-01T10:00:01+01:00",
        "2026-11-01T10:00:01.5+01:00", "2026-11-01T10:00:01.123456Z", "2026-11-01t10:00:01Z", "yesterday", "",
    ])
    func parsesAsISO8601DateFormatter(_ text: String) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let whole = ISO8601DateFormatter()
        whole.formatOptions = [.withInternetDateTime]
        #expect(HARDate.parse(text) == formatter.date(from: text) ?? whole.date(from: text))
    }
}
