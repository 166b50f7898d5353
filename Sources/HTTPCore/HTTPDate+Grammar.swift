import FoundationEssentials

extension HTTPDate {
    /// Parses exactly the three forms of RFC 9110 §5.6.7, character for character, and nothing else:
    ///
    /// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// - rfc850-date (obsolete): `Sunday, 06-Nov-94 08:49:37 GMT`
    /// - asctime-date (obsolete): `Sun Nov  6 08:49:37 1994` (a one-digit day is preceded by a space)
    ///
    /// Day names, month names and `GMT` are case-sensitive (`%s` in the grammar); every number has
    /// its fixed count of digits; there is no other whitespace. A one-digit hour, dashes in an
    /// IMF-fixdate, a missing comma or an extra space make the text no date at all. ``parse(_:)``
    /// is lenient for fields where a near-miss is better read than dropped; this parser is for
    /// fields whose invalid values have a meaning of their own, such as `Expires` (RFC 9111 §5.3:
    /// "already expired").
    public static func parseStrictly(_ text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        return imfFixdate(bytes) ?? rfc850Date(bytes) ?? asctimeDate(bytes)
    }

    // `IMF-fixdate = day-name "," SP date1 SP time-of-day SP GMT`, `date1 = day SP month SP year`.
    private static func imfFixdate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 29, shortDayNames.contains(text(bytes[0..<3])), text(bytes[3..<5]) == ", ",
            bytes[7] == space, bytes[11] == space, bytes[16] == space, text(bytes[25...]) == " GMT",
            let day = digits(bytes[5..<7]), let month = monthNumber(bytes[8..<11]), let year = digits(bytes[12..<16]),
            let time = timeOfDay(bytes[17..<25])
        else { return nil }
        return strictDate(year: year, month: month, day: day, time: time)
    }

    // `rfc850-date = day-name-l "," SP date2 SP time-of-day SP GMT`, `date2 = day "-" month "-" 2DIGIT`.
    private static func rfc850Date(_ bytes: [UInt8]) -> Date? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), longDayNames.contains(text(bytes[..<comma])),
            bytes.count == comma + 24
        else { return nil }
        let rest = Array(bytes[(comma + 1)...])
        guard rest[0] == space, rest[3] == UInt8(ascii: "-"), rest[7] == UInt8(ascii: "-"), rest[10] == space,
            text(rest[19...]) == " GMT", let day = digits(rest[1..<3]), let month = monthNumber(rest[4..<7]),
            let shortYear = digits(rest[8..<10]), let time = timeOfDay(rest[11..<19])
        else { return nil }
        // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
        return strictDate(year: shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, month: month, day: day,
                          time: time)
    }

    // `asctime-date = day-name SP date3 SP time-of-day SP year`, `date3 = month SP ( 2DIGIT / ( SP DIGIT ))`.
    private static func asctimeDate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 24, shortDayNames.contains(text(bytes[0..<3])), bytes[3] == space, bytes[7] == space,
            bytes[10] == space, bytes[19] == space, let month = monthNumber(bytes[4..<7]),
            let time = timeOfDay(bytes[11..<19]), let year = digits(bytes[20..<24])
        else { return nil }
        let day = bytes[8] == space ? digits(bytes[9..<10]) : digits(bytes[8..<10])
        guard let day else { return nil }
        return strictDate(year: year, month: month, day: day, time: time)
    }

    private static let space = UInt8(ascii: " ")
    private static let shortDayNames: Set<String> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames: Set<String> = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]
    private static let strictMonthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                           "Nov", "Dec"]

    private static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func monthNumber(_ bytes: some Collection<UInt8>) -> Int? {
        strictMonthNames.firstIndex(of: text(bytes)).map { $0 + 1 }
    }

    /// The value of a run of ASCII digits, `nil` if any byte is not one.
    private static func digits(_ bytes: some Collection<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    // `time-of-day = hour ":" minute ":" second`, two digits each.
    private static func timeOfDay(_ bytes: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        let start = bytes.startIndex
        guard bytes.count == 8, bytes[start + 2] == UInt8(ascii: ":"), bytes[start + 5] == UInt8(ascii: ":"),
            let hour = digits(bytes[start..<start + 2]), let minute = digits(bytes[start + 3..<start + 5]),
            let second = digits(bytes[start + 6..<start + 8])
        else { return nil }
        return (hour, minute, second)
    }

    private static func strictDate(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        // Reformatted and read back by the lenient parser, which checks the calendar and the clock.
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let text = "\(padded(day, 2)) \(strictMonthNames[month - 1]) \(padded(year, 4))"
        let clock = [time.0, time.1, time.2].map { padded($0, 2) }.joined(separator: ":")
        return parse("Mon, \(text) \(clock) GMT")
    }
}
