import FoundationEssentials

/// Parses the `Expires` attribute of a `Set-Cookie` line.
///
/// Servers write cookie dates in many shapes (`Wed, 09-Jun-2021 10:18:14 GMT`, `Thu, 1 Jan 2026 00:00:00`,
/// two-digit years, missing weekday). RFC 6265 §5.1.1 defines a lenient algorithm that accepts them
/// all, including the three forms HTTPCore's `HTTPDate` parses. `HTTPDate` is not consulted first: it
/// rolls `30 Feb` over to `1 Mar` and accepts years before 1601, both of which §5.1.1 rejects.
enum CookieDate {
    /// The date `text` names, or `nil` when RFC 6265 §5.1.1 says it fails to parse.
    static func parse(_ text: some StringProtocol) -> Date? {
        parseLeniently(Array(text.utf8))
    }

    // MARK: - RFC 6265 §5.1.1

    private static func parseLeniently(_ bytes: [UInt8]) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?
        for token in bytes.split(whereSeparator: isDelimiter) {
            let token = Array(token)
            if time == nil, let value = parseTime(token) {
                time = value
            } else if dayOfMonth == nil, let value = leadingDigits(token, minimum: 1, maximum: 2) {
                dayOfMonth = value
            } else if month == nil, let value = parseMonth(token) {
                month = value
            } else if year == nil, let value = leadingDigits(token, minimum: 2, maximum: 4) {
                year = value
            }
        }
        guard let time, let dayOfMonth, let month, var year else { return nil }
        // "If the year-value is greater than or equal to 70 and less than or equal to 99, increment the
        // year-value by 1900. If the year-value is greater than or equal to 0 and less than or equal to 69,
        // increment the year-value by 2000."
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(dayOfMonth), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            dayOfMonth <= daysIn(month: month, year: year)
        else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = dayOfMonth
        components.hour = time.hour
        components.minute = time.minute
        components.second = time.second
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: components)
    }

    /// delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `minimum*maximum DIGIT ( non-digit *OCTET )`: the leading digits' value, or `nil`.
    private static func leadingDigits(_ token: [UInt8], minimum: Int, maximum: Int) -> Int? {
        let digits = token.prefix { isDigit($0) }
        guard (minimum...maximum).contains(digits.count) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `time = hms-time ( non-digit *OCTET )`, `hms-time = time-field ":" time-field ":" time-field`.
    private static func parseTime(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var index = 0
        for fieldNumber in 0..<3 {
            var digits = 0
            var value = 0
            while index < token.count, isDigit(token[index]), digits < 2 {
                value = value * 10 + Int(token[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            fields.append(value)
            if fieldNumber < 2 {
                guard index < token.count, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        if index < token.count, isDigit(token[index]) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// `month = ( "jan" / … / "dec" ) *OCTET`, compared case-insensitively.
    private static func parseMonth(_ token: [UInt8]) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return monthNames.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
