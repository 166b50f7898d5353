import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The named fields that open a WARC record (ISO 28500:2017, WARC 1.1 §4), in order, with
/// accessors for the ones webcache reads and writes.
public struct WARCHeader: Sendable, Hashable {
    /// The version line's version, such as `WARC/1.1` (1.0 files are read too).
    public var version: String
    /// The fields in order; names compare without regard to case.
    public var fields: HTTPHeaders

    /// Creates a header of `version` with `fields`.
    public init(version: String = "WARC/1.1", fields: HTTPHeaders = [:]) {
        self.version = version
        self.fields = fields
    }

    /// `WARC-Type`: `warcinfo`, `request`, `response`, `revisit`, `metadata`, `resource`, ….
    public var type: String { fields["WARC-Type"] ?? "" }
    /// `WARC-Record-ID`, a URI in angle brackets.
    public var recordID: String { fields["WARC-Record-ID"] ?? "" }
    /// `WARC-Target-URI`, without the angle brackets some writers add.
    public var targetURI: String? {
        fields["WARC-Target-URI"].map { $0.hasPrefix("<") && $0.hasSuffix(">") ? String($0.dropFirst().dropLast()) : $0 }
    }
    /// `WARC-Date`, parsed.
    public var date: Date? { fields["WARC-Date"].flatMap(WARCDate.parse) }
    /// `Content-Length`: the length of the record's block.
    public var contentLength: Int64? { fields["Content-Length"].flatMap { Int64($0.trimmingHTTPWhitespace()) } }
    /// Every `WARC-Concurrent-To` record id.
    public var concurrentTo: [String] { fields.values(for: "WARC-Concurrent-To") }

    /// The header as written: the version line, the fields, and the empty line that ends them.
    public func serialized() -> Data {
        HTTPMessageHead(startLine: version, headers: fields).serialized()
    }

    /// Parses a header's bytes (the version line and fields, without the empty line).
    ///
    /// - Throws: ``ArchiveError`` (without an offset) when the bytes are not a WARC header.
    public static func parse(_ bytes: Data) throws -> WARCHeader {
        let (first, fields) = try HTTPMessageHead.lines(bytes)
        guard first.hasPrefix("WARC/") else {
            throw ArchiveError(reason: "The record does not start with a WARC version line.")
        }
        return WARCHeader(version: first, fields: HTTPHeaders(fields))
    }
}

/// WARC-Date values: UTC, `YYYY-MM-DDThh:mm:ssZ` with optional fractional seconds (WARC 1.1 §5.4).
public enum WARCDate {
    /// `date` with microseconds, as WARC 1.1 allows, so that a response time survives a round trip.
    public static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        var seconds = time_t(micros.floorDiv(1_000_000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Digits written one by one: a formatted print of its seven numbers cost more than the rest of
        // a record's header.
        var text: [UInt8] = []
        text.reserveCapacity(27)
        func append(_ number: Int, digits: Int, then separator: Character) {
            if number < 0 { text.append(UInt8(ascii: "-")) }
            var rest = number.magnitude
            var place: UInt = 1
            for _ in 1..<digits { place *= 10 }
            while rest / place >= 10 { place *= 10 }
            while place > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / place))
                rest %= place
                place /= 10
            }
            text.append(separator.asciiValue!)
        }
        append(Int(parts.tm_year) + 1900, digits: 4, then: "-")
        append(Int(parts.tm_mon) + 1, digits: 2, then: "-")
        append(Int(parts.tm_mday), digits: 2, then: "T")
        append(Int(parts.tm_hour), digits: 2, then: ":")
        append(Int(parts.tm_min), digits: 2, then: ":")
        append(Int(parts.tm_sec), digits: 2, then: ".")
        append(Int(micros - micros.floorDiv(1_000_000) * 1_000_000), digits: 6, then: "Z")
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses a WARC-Date (to the second, or with a fraction), `nil` when it is not one.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.trimmingHTTPWhitespace().utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"),
            bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int32? { Int32(String(decoding: bytes[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."),
                let value = Double("0" + String(decoding: bytes[19..<(bytes.count - 1)], as: UTF8.self))
            else { return nil }
            fraction = value
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)) + fraction)
    }
}

extension Int64 {
    /// The quotient rounded toward negative infinity.
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
