import Discovery
import Foundation

/// Conversions for option values that users type: durations, byte sizes and counts.
enum ValueParsers {
    /// `90s`, `15m`, `12h`, `7d`, `2w`, or a plain number of seconds. Returns seconds.
    static func duration(_ text: String) -> TimeInterval? {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let last = trimmed.last else { return nil }
        let (digits, unit) = units[last].map { (trimmed.dropLast(), $0) } ?? (Substring(trimmed), 1)
        guard let number = Double(digits), number >= 0, number.isFinite else { return nil }
        return number * unit
    }

    /// A byte size as people write it, in bytes: `500`, `500B`; decimal units `kB`, `MB`, `GB`,
    /// `TB` (powers of 1000, as disks and networks count); binary units `KiB`, `MiB`, `GiB`, `TiB`
    /// (powers of 1024); and the bare letters `K`, `M`, `G`, `T`, which mean the binary units, as in
    /// `du` and curl. Case does not matter; a space may stand before the unit.
    static func byteSize(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let unitStart = trimmed.firstIndex { $0.isLetter } ?? trimmed.endIndex
        let number = trimmed[..<unitStart].trimmingCharacters(in: .whitespaces)
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

    /// A byte size as understood, in both forms people read: `45 MB (45,000,000 bytes)`.
    static func describeByteSize(_ bytes: Int64) -> String {
        let decimal = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < decimal.count - 1 {
            value /= 1000
            unit += 1
        }
        let short = unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + decimal[unit]
        let binary = formatBytes(bytes)
        let exact = bytes.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
        return unit == 0 ? short : "\(short) = \(binary) (\(exact) bytes)"
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
    static func count(in range: ClosedRange<Int>) -> (String) -> Int? {
        { text in Int(text).flatMap { range.contains($0) ? $0 : nil } }
    }

    /// Formats bytes for people: `812 B`, `14.2 KiB`, `3.0 MiB`.
    static func formatBytes(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
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
