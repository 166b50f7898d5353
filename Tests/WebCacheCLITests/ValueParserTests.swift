import Foundation
import Testing
import WebCache

@testable import WebCacheCLI

/// Conversions of option values: durations and sizes in, bytes and durations out.
struct ValueParserTests {
    @Test(arguments: [
        ("90", 90), ("90s", 90), ("15m", 900), ("12h", 43_200), ("7d", 604_800), ("2w", 1_209_600),
        ("1.5h", 5_400), (" 30D ", 2_592_000), ("0", 0), ("250ms", 0.25), ("1MS", 0.001),
    ] as [(String, TimeInterval)])
    func parsesDurations(text: String, seconds: TimeInterval) {
        #expect(ValueParsers.duration(text) == seconds)
    }

    /// `--flush-hits` says "1ms to 1d": both ends, in the units it names.
    @Test func intervalsRunFromAMillisecondToADay() {
        #expect(ValueParsers.interval("1ms") == .milliseconds(1))
        #expect(ValueParsers.interval("200ms") == .milliseconds(200))
        #expect(ValueParsers.interval("1d") == .seconds(86_400))
        #expect(ValueParsers.interval("0.4ms") == nil)
        #expect(ValueParsers.interval("25h") == nil)
    }

    /// `--log-flush` and `--settle`: a plain number is milliseconds, and every unit up to hours reads.
    @Test func shortDurationsTakeEveryUnitUpToAnHour() {
        #expect(ValueParsers.milliseconds("250") == .milliseconds(250))
        #expect(ValueParsers.milliseconds("250ms") == .milliseconds(250))
        #expect(ValueParsers.milliseconds("1.5s") == .milliseconds(1_500))
        #expect(ValueParsers.milliseconds("1m") == .seconds(60))
        #expect(ValueParsers.milliseconds("1h") == .seconds(3_600))
        #expect(ValueParsers.milliseconds("61m") == nil)
        #expect(ValueParsers.milliseconds("1d") == nil)
    }

    @Test(arguments: [("0/4", 0, 4), ("3/4", 3, 4), ("0/1", 0, 1), ("17/100", 17, 100)])
    func parsesShards(text: String, index: Int, count: Int) {
        #expect(ValueParsers.shard(text).map { [$0.index, $0.count] } == [index, count])
    }

    @Test(arguments: ["4/4", "-1/4", "1/0", "1", "1/2/3", "a/4", "", "/4"])
    func refusesBadShards(text: String) {
        #expect(ValueParsers.shard(text) == nil)
    }

    @Test(arguments: ["", "d", "-5m", "3 fortnights", "5y", "1e400", "nan", "inf", "10mm", "ms", "5 msec"])
    func refusesBadDurations(text: String) {
        #expect(ValueParsers.duration(text) == nil)
    }

    @Test(arguments: [
        ("500", 500), ("500B", 500), ("64K", 65_536), ("64KiB", 65_536), ("10MiB", 10_485_760),
        ("1.5G", 1_610_612_736), ("2GiB", 2_147_483_648), ("1t", 1_099_511_627_776), ("0", 0),
        // Decimal units are powers of 1000, as written
        ("10MB", 10_000_000), ("45mb", 45_000_000), ("64kB", 64_000), ("1.5GB", 1_500_000_000),
        ("2TB", 2_000_000_000_000), ("45 MB", 45_000_000), ("45 MiB", 47_185_920),
    ] as [(String, Int64)])
    func parsesSizes(text: String, bytes: Int64) {
        #expect(ValueParsers.byteSize(text) == bytes)
    }

    @Test(arguments: ["", "B", "lots", "-1K", "10 apples", "99999999999T", "1KK", "1MiBB", "1Mi", "inf", "nanMB"])
    func refusesBadSizes(text: String) {
        #expect(ValueParsers.byteSize(text) == nil)
    }

    @Test(arguments: [
        (999, "999 B"), (45_000_000, "45.0 MB = 42.9 MiB (45,000,000 bytes)"),
        (47_185_920, "47.2 MB = 45.0 MiB (47,185,920 bytes)"),
    ] as [(Int64, String)])
    func describesSizesAsUnderstood(bytes: Int64, text: String) {
        #expect(ValueParsers.describeByteSize(bytes) == text)
    }

    /// Thousands grouped as Foundation's en_US number format groups them.
    @Test(arguments: [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 45_000_000, -1234, Int64.max] as [Int64])
    func groupsThousandsAsEnglishUS(_ number: Int64) {
        #expect(ValueParsers.groupingThousands(number)
            == number.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US"))))
    }

    @Test(arguments: [
        (0, "0 B"), (812, "812 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (14_540, "14.2 KiB"),
        (3_145_728, "3.0 MiB"), (5_368_709_120, "5.0 GiB"),
    ] as [(Int64, String)])
    func formatsBytes(bytes: Int64, text: String) {
        #expect(ValueParsers.formatBytes(bytes) == text)
    }

    @Test(arguments: [
        (45, "45s"), (59.9, "59s"), (720, "12m"), (10_800, "3h"), (172_800, "2d"), (-90, "-1m"),
    ] as [(TimeInterval, String)])
    func formatsDurations(seconds: TimeInterval, text: String) {
        #expect(ValueParsers.formatDuration(seconds) == text)
    }

    @Test(arguments: [(0, "0 entries"), (1, "1 entry"), (2, "2 entries"), (1_000, "1000 entries")])
    func formatsCountsWithTheirNoun(count: Int, text: String) {
        #expect(ValueParsers.formatCount(count, "entry", "entries") == text)
    }

    @Test func countsStayInTheirRange() {
        let parse = ValueParsers.count(in: 1...64)
        #expect(parse("8") == 8)
        #expect(parse("0") == nil)
        #expect(parse("65") == nil)
        #expect(parse("eight") == nil)
    }
}
