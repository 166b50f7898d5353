import FoundationEssentials

/// HTTP dates (RFC 9110 §5.6.7): formatting in IMF-fixdate, parsing of all three historic forms.
///
/// Hand-written rather than built on `DateFormatter`, which is slow, locale-sensitive and needs
/// care to share between threads; every date a cache reads goes through here.
public enum HTTPDate {
    /// Parses `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT` or
    /// `Sun Nov  6 08:49:37 1994`. Returns `nil` for anything else, which callers must treat as
    /// RFC 9111 says for the field in question (an invalid `Expires` means "already expired").
    public static func parse(_ text: some StringProtocol) -> Date? {
        fixdate(text.utf8) ?? parseTokens(text)
    }

    /// The same parse of a `String`, compiled for it here: a generic function of
    /// another module runs unspecialised, and every hit reads the stored `Date` field.
    public static func parse(_ text: String) -> Date? {
        fixdate(text.utf8) ?? parseTokens(text)
    }

    /// IMF-fixdate, the form servers send, read from its fixed positions without splitting the text:
    /// `nil` for anything else, which ``parseTokens(_:)`` then reads.
    static func fixdate(_ utf8: some Collection<UInt8>) -> Date? {
        guard utf8.count == 29 else { return nil }
        if let date = utf8.withContiguousStorageIfAvailable(fixdate(bytes:)) { return date }
        return fixdate(bytes: Array(utf8)[...])
    }

    /// ``fixdate(_:)`` of exactly 29 bytes, read in place.
    private static func fixdate(bytes: some RandomAccessCollection<UInt8>) -> Date? {
        let start = bytes.startIndex
        func byte(_ offset: Int) -> UInt8 { bytes[bytes.index(start, offsetBy: offset)] }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for offset in range {
                let digit = byte(offset) &- UInt8(ascii: "0")
                guard digit <= 9 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        func isLetter(_ offset: Int) -> Bool {
            let lower = byte(offset) | 0x20
            return lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
        }
        guard isLetter(0), isLetter(1), isLetter(2), byte(3) == UInt8(ascii: ","), byte(4) == UInt8(ascii: " "),
            byte(7) == UInt8(ascii: " "), byte(11) == UInt8(ascii: " "), byte(16) == UInt8(ascii: " "),
            byte(19) == UInt8(ascii: ":"), byte(22) == UInt8(ascii: ":"), byte(25) == UInt8(ascii: " "),
            byte(26) == UInt8(ascii: "G"), byte(27) == UInt8(ascii: "M"), byte(28) == UInt8(ascii: "T"),
            let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
            let minute = number(20..<22), let second = number(23..<25),
            let month = month(byte(8), byte(9), byte(10))
        else { return nil }
        return make(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The three forms, read token by token.
    static func parseTokens(_ text: some StringProtocol) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        // IMF-fixdate: day-name, DD Mon YYYY HH:MM:SS GMT
        if tokens.count == 6, tokens[5] == "GMT", let day = Int(tokens[1]), let month = month(tokens[2]),
            tokens[3].count == 4, let year = Int(tokens[3])
        {
            return make(year: year, month: month, day: day, time: tokens[4])
        }
        // RFC 850: day-name, DD-Mon-YY HH:MM:SS GMT
        if tokens.count == 4, tokens[3] == "GMT" {
            let parts = tokens[1].split(separator: "-")
            if parts.count == 3, let day = Int(parts[0]), let month = month(parts[1]), let short = Int(parts[2]) {
                // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
                let year = parts[2].count == 4 ? short : (short < 70 ? 2000 + short : 1900 + short)
                return make(year: year, month: month, day: day, time: tokens[2])
            }
        }
        // asctime: day-name Mon D HH:MM:SS YYYY
        if tokens.count == 5, let month = month(tokens[1]), let day = Int(tokens[2]), let year = Int(tokens[4]) {
            return make(year: year, month: month, day: day, time: tokens[3])
        }
        return nil
    }

    /// Formats `date` as IMF-fixdate, such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(fromDays: days)
        let weekday = Int((days % 7 + 7 + 4) % 7)  // 1970-01-01 was a Thursday
        // IMF-fixdate's year is four digits (RFC 9110 §5.6.7), years before 1000 included.
        let digits = String(year)
        let fourDigitYear = year < 0 ? digits : String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return "\(dayNames[weekday]), \(pad(day)) \(monthNames[month - 1]) \(fourDigitYear) "
            + "\(pad(Int(secondOfDay / 3600))):\(pad(Int(secondOfDay / 60 % 60))):\(pad(Int(secondOfDay % 60))) GMT"
    }

    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static func month(_ name: some StringProtocol) -> Int? {
        monthNames.firstIndex { $0.caseInsensitiveEquals(name) }.map { $0 + 1 }
    }

    /// The month (1 to 12) whose three-letter name is `first`, `second`, `third`, in any case.
    private static func month(_ first: UInt8, _ second: UInt8, _ third: UInt8) -> Int? {
        let letters = (first | 0x20, second | 0x20, third | 0x20)
        return monthNames.firstIndex { name in
            var bytes = name.utf8.makeIterator()
            return bytes.next()! | 0x20 == letters.0 && bytes.next()! | 0x20 == letters.1
                && bytes.next()! | 0x20 == letters.2
        }.map { $0 + 1 }
    }

    private static func make(year: Int, month: Int, day: Int, time: some StringProtocol) -> Date? {
        let parts = time.split(separator: ":")
        guard parts.count == 3, let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2])
        else { return nil }
        return make(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    private static func make(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...9999).contains(year), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let total = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: TimeInterval(total))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil algorithm (proleptic Gregorian calendar).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civilDate(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}
