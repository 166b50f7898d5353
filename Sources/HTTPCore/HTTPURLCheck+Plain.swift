import FoundationEssentials

extension HTTPURLCheck {
    /// The URL `text` spells when its bytes alone show that it passes ``problem(with:)``, carries no
    /// user name or password, and is its own cache key (``Foundation/URL/cacheKey``), with nothing
    /// that ``Foundation/URL/init(parsing:relativeTo:)`` would encode; `nil` for anything else,
    /// which the caller then parses and checks the full way.
    ///
    /// That is: `http://` or `https://` in lower case; a host of lower-case ASCII letters, digits
    /// and `-` in dot-separated labels, none empty and no final dot, whose last label is not a
    /// number, or else four decimal numbers from 0 to 255 without leading zeros; an optional port
    /// from 1 to 65535 without leading zeros that is not the scheme's default; then `/` and a path
    /// and query of the characters a URL holds as they are, without `%`, a fragment, or a `.` or
    /// `..` segment in the path. Lists of URLs that programs write are nearly all such lines, and
    /// this check costs a pass over the bytes where the full way parses and checks several times.
    public static func plainURL(_ text: String) -> URL? {
        var text = text
        guard text.withUTF8(isPlain) else { return nil }
        return URL(string: text)
    }

    /// Whether `bytes` are a URL as ``plainURL(_:)`` takes it.
    static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let authority = plainAuthority(bytes), authority.end < bytes.count,
            bytes[authority.end] == UInt8(ascii: "/")
        else { return false }
        return isPlainPathAndQuery(bytes, from: authority.end)
    }

    /// The host and port of the URL `text` when its scheme, host and port are plain as
    /// ``plainURL(_:)`` takes them and the path, query, fragment or the text's end follows; the
    /// port is the scheme's default when the URL names none. `nil` for anything else, which the
    /// caller reads from the parsed URL: for a plain URL, `URL`'s `host` and port are these.
    public static func plainHostAndPort(_ text: String) -> (host: String, port: Int)? {
        var text = text
        return text.withUTF8 { bytes in
            guard let authority = plainAuthority(bytes), endsAuthority(bytes, at: authority.end) else { return nil }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[authority.host]), as: UTF8.self),
                    authority.port)
        }
    }

    /// `http` or `https`, the scheme of the URL `text` when ``plainHostAndPort(_:)`` reads its host
    /// and port; `nil` for anything else, which the caller reads from the parsed URL.
    public static func plainScheme(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes in
            guard let authority = plainAuthority(bytes), endsAuthority(bytes, at: authority.end) else { return nil }
            return bytes[4] == UInt8(ascii: "s") ? "https" : "http"
        }
    }

    /// Whether the path, query, fragment or the text's end follows the authority ending at `end`.
    private static func endsAuthority(_ bytes: UnsafeBufferPointer<UInt8>, at end: Int) -> Bool {
        end == bytes.count || bytes[end] == UInt8(ascii: "/") || bytes[end] == UInt8(ascii: "?")
            || bytes[end] == UInt8(ascii: "#")
    }

    /// The scheme, host and port at the start of `bytes` when they are plain (see ``plainURL(_:)``):
    /// where the host is, the port (the scheme's default when none is written), and where the
    /// authority ends; `nil` otherwise.
    private static func plainAuthority(_ bytes: UnsafeBufferPointer<UInt8>)
        -> (host: Range<Int>, port: Int, end: Int)?
    {
        guard bytes.count > 8, bytes[0] == UInt8(ascii: "h"), bytes[1] == UInt8(ascii: "t"),
            bytes[2] == UInt8(ascii: "t"), bytes[3] == UInt8(ascii: "p")
        else { return nil }
        let secure = bytes[4] == UInt8(ascii: "s")
        let (start, defaultPort) = secure ? (8, 443) : (7, 80)
        guard bytes[start - 3] == UInt8(ascii: ":"), bytes[start - 2] == UInt8(ascii: "/"),
            bytes[start - 1] == UInt8(ascii: "/")
        else { return nil }
        guard let hostEnd = plainHostEnd(bytes, from: start) else { return nil }
        guard hostEnd < bytes.count, bytes[hostEnd] == UInt8(ascii: ":") else {
            return (start..<hostEnd, defaultPort, hostEnd)
        }
        guard let port = plainPort(bytes, from: hostEnd + 1, refusing: defaultPort) else { return nil }
        return (start..<hostEnd, port.value, port.end)
    }

    /// Where the plain host starting at `start` ends (the index after it), or `nil` when it is no
    /// plain host (see ``plainURL(_:)``).
    private static func plainHostEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        var labelStart = start
        var labels = 0
        var lastLabelIsDigits = true
        var allLabelsAreOctets = true
        func endLabel(at end: Int) -> Bool {
            guard end > labelStart else { return false }
            labels += 1
            if lastLabelIsDigits {
                let digits = UnsafeBufferPointer(rebasing: bytes[labelStart..<end])
                let isOctet = digits.count <= 3 && (digits.count == 1 || digits[0] != UInt8(ascii: "0"))
                    && digits.reduce(0) { $0 * 10 + Int($1 - 48) } <= 255
                allLabelsAreOctets = allLabelsAreOctets && isOctet
            } else {
                allLabelsAreOctets = false
            }
            return true
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard endLabel(at: index) else { return nil }
                labelStart = index + 1
                lastLabelIsDigits = true
            } else if byte >= 48 && byte <= 57 {
                // A digit keeps the label a number.
            } else if (byte >= 97 && byte <= 122) || byte == UInt8(ascii: "-") {
                lastLabelIsDigits = false
            } else {
                break
            }
            index += 1
        }
        guard endLabel(at: index) else { return nil }
        // A number as the last label makes the host an IPv4 address, which must be spelled in full here.
        guard !lastLabelIsDigits || (labels == 4 && allLabelsAreOctets) else { return nil }
        return index
    }

    /// The port whose digits start at `start`, and where they end, or `nil` when they are no plain
    /// port: 1 to 5 digits without a leading zero, from 1 to 65535, not `defaultPort`.
    private static func plainPort(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, refusing defaultPort: Int)
        -> (value: Int, end: Int)?
    {
        var index = start
        var port = 0
        while index < bytes.count, index - start < 5, bytes[index] >= 48, bytes[index] <= 57 {
            port = port * 10 + Int(bytes[index] - 48)
            index += 1
        }
        guard index > start, bytes[start] != UInt8(ascii: "0"), (1...65535).contains(port), port != defaultPort
        else { return nil }
        return (port, index)
    }

    /// Whether the path and query from `start` (a `/`) to the end hold only characters a URL holds
    /// as they are, without `%` or `#` (or a `'` in the query), and the path has no `.` or `..` segment.
    private static func isPlainPathAndQuery(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var segmentStart = start + 1
        var inPath = true
        var index = start + 1
        while index <= bytes.count {
            let byte = index < bytes.count ? bytes[index] : UInt8(ascii: "?")
            if inPath, byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") {
                let length = index - segmentStart
                if length == 1 || length == 2,
                    bytes[segmentStart] == UInt8(ascii: "."), length == 1 || bytes[segmentStart + 1] == UInt8(ascii: ".")
                {
                    return false
                }
                segmentStart = index + 1
                inPath = byte == UInt8(ascii: "/")
            } else if index < bytes.count,
                !URL.holdsAfterHost(byte) || byte == UInt8(ascii: "#") || (!inPath && byte == UInt8(ascii: "'"))
            {
                // A `'` in the query is one the cache key writes as `%27` (``URL/cacheKey``).
                return false
            }
            index += 1
        }
        return true
    }
}
