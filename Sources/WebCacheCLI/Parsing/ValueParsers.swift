import Discovery
import FoundationEssentials
import HTTPCore
import WebCache

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Conversions for option values that users type: durations, byte sizes and counts.
enum ValueParsers {
    /// `250ms`, `90s`, `15m`, `12h`, `7d`, `2w`, or a plain number of seconds. Returns seconds.
    static func duration(_ text: String) -> TimeInterval? {
        measure(text, in: ["ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800], plain: 1)
    }

    /// The non-negative number `text` writes, followed by one of `units` (the longest that ends it:
    /// `ms`, not `m`), in the measure the units are given in; `plain` is the unit of a number alone.
    private static func measure(_ text: String, in units: [String: Double], plain: Double) -> Double? {
        let trimmed = text.trimmingWhitespace().lowercased()
        let unit = units.keys.filter { trimmed.hasSuffix($0) }.max { $0.count < $1.count }
        let digits = unit.map { trimmed.dropLast($0.count) } ?? Substring(trimmed)
        guard let number = Double(digits), number >= 0, number.isFinite else { return nil }
        return number * (unit.flatMap { units[$0] } ?? plain)
    }

    /// ``duration(_:)`` from a millisecond to a day, as a `Duration`: a timeout or an interval,
    /// which a larger or non-finite number would overflow.
    static func interval(_ text: String) -> Duration? {
        duration(text).flatMap(wholeMilliseconds)
    }

    /// `seconds` as a whole number of milliseconds, when that is from one to a day's.
    private static func wholeMilliseconds(_ seconds: Double) -> Duration? {
        let milliseconds = (seconds * 1000).rounded()
        guard milliseconds >= 1, milliseconds <= 86_400_000 else { return nil }
        return .milliseconds(Int64(milliseconds))
    }

    /// `300ms`, `2s`, `1.5s`, `1m`, `1h`, or a plain number of milliseconds, up to an hour.
    static func milliseconds(_ text: String) -> Duration? {
        guard let milliseconds = measure(text, in: ["ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000], plain: 1),
            milliseconds <= 3_600_000
        else { return nil }
        return .milliseconds(Int64(milliseconds.rounded()))
    }

    /// A byte size as people write it, in bytes: `500`, `500B`; decimal units `kB`, `MB`, `GB`,
    /// `TB` (powers of 1000, as disks and networks count); binary units `KiB`, `MiB`, `GiB`, `TiB`
    /// (powers of 1024); and the bare letters `K`, `M`, `G`, `T`, which mean the binary units, as in
    /// `du` and curl. Case does not matter; a space may stand before the unit.
    static func byteSize(_ text: String) -> Int64? {
        let trimmed = text.trimmingWhitespace()
        let unitStart = trimmed.firstIndex { $0.isLetter } ?? trimmed.endIndex
        let number = trimmed[..<unitStart].trimmingWhitespace()
        guard let value = Double(number), value >= 0, value.isFinite,
            let multiplier = byteUnits[trimmed[unitStart...].lowercased()]
        else { return nil }
        let bytes = (value * multiplier).rounded()
        guard bytes < Double(Int64.max) else { return nil }
        return Int64(bytes)
    }

    /// The multipliers of the units ``byteSize(_:)`` reads, by lower-case unit.
    private static let byteUnits: [String: Double] = {
        var units: [String: Double] = ["": 1, "b": 1]
        for (power, letter) in ["k", "m", "g", "t"].enumerated() {
            let decimal = pow(1000, Double(power + 1))
            let binary = pow(1024, Double(power + 1))
            units[letter] = binary
            units[letter + "b"] = decimal
            units[letter + "ib"] = binary
        }
        return units
    }()

    /// `number` with a comma between each group of three digits (`45,000,000`), as en_US writes it.
    static func groupingThousands(_ number: Int64) -> String {
        let digits = String(number.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return number < 0 ? "-" + grouped : grouped
    }

    /// A byte size as understood, in both forms people read: `45.0 MB = 42.9 MiB (45,000,000 bytes)`.
    static func describeByteSize(_ bytes: Int64) -> String {
        guard bytes >= 1000 else { return "\(bytes) B" }
        let exact = groupingThousands(bytes)
        let decimal = scaled(bytes, by: 1000, units: ["B", "kB", "MB", "GB", "TB"])
        return "\(decimal) = \(formatBytes(bytes)) (\(exact) bytes)"
    }

    /// A device preset by name (`phone`), as ``DeviceProfile/presets`` lists them.
    static func devicePreset(_ text: String) -> DeviceProfile? {
        DeviceProfile.presets.first { $0.name == text.lowercased() }?.profile
    }

    /// A viewport, `WIDTHxHEIGHT` in CSS pixels, each from 1 to 100,000.
    static func viewport(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
            (1...100_000).contains(width), (1...100_000).contains(height)
        else { return nil }
        return (width, height)
    }

    /// A device pixel ratio from 0.1 to 16.
    static func pixelRatio(_ text: String) -> Double? {
        Double(text).flatMap { $0.isFinite && (0.1...16).contains($0) ? $0 : nil }
    }

    /// A pixel ratio for people: `1`, `2.625`.
    static func formatRatio(_ ratio: Double) -> String {
        ratio == ratio.rounded() ? String(Int(ratio)) : String(ratio)
    }

    /// A whole number within `range`.
    /// `K/N`: shard K (from 0) of N, as `--shard` takes it (and `$JOB_COMPLETION_INDEX/N` gives it).
    static func shard(_ text: String) -> PreloadShard? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count <= 1_000_000 else {
            return nil
        }
        return PreloadShard(index: index, count: count)
    }

    static func count(in range: ClosedRange<Int>) -> (String) -> Int? {
        { text in Int(text).flatMap { range.contains($0) ? $0 : nil } }
    }

    /// `--icons`: `true` for `all`, `false` for `browser`.
    static func iconChoice(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "all": true
        case "browser": false
        default: nil
        }
    }

    /// Formats a count with its noun for people: `1 entry`, `3 entries`, `0 entries`.
    static func formatCount(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == 1 ? singular : plural)"
    }

    /// Formats bytes for people: `812 B`, `14.2 KiB`, `3.0 MiB`.
    static func formatBytes(_ bytes: Int64) -> String {
        scaled(bytes, by: 1024, units: ["B", "KiB", "MiB", "GiB", "TiB"])
    }

    /// `bytes` in the largest of `units` (each `base` times the one before) that keeps it at least 1,
    /// with one decimal; plain bytes below the first step.
    private static func scaled(_ bytes: Int64, by base: Double, units: [String]) -> String {
        var value = Double(bytes)
        var unit = 0
        while value >= base, unit < units.count - 1 {
            value /= base
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(printf: "%.1f", value) + " " + units[unit]
    }

    /// Formats a duration for people: `45s`, `12m`, `3h`, `2d`.
    static func formatDuration(_ seconds: TimeInterval) -> String {
        let magnitude = abs(seconds)
        let text: String
        switch magnitude {
        case ..<60: text = "\(Int(magnitude))s"
        case ..<3600: text = "\(Int(magnitude / 60))m"
        case ..<86_400: text = "\(Int(magnitude / 3600))h"
        default: text = "\(Int(magnitude / 86_400))d"
        }
        return seconds < 0 ? "-" + text : text
    }
}
