import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension URL {
    /// The URL as a cache key: scheme and host lowercased, the default port (80 for http, 443 for
    /// https) and the fragment removed, an empty path written `/`, escapes of unreserved characters
    /// decoded and the others' hex digits in upper case (RFC 3986 §6.2.2.1, §6.2.2.2), `.` and `..`
    /// segments removed, and a `'` in the query written `%27`, as the URL Standard's parser writes it
    /// for http(s) and so browsers send it. Two spellings of one resource give one key, so an entry
    /// stored under one is found, and invalidated, under the other.
    public var cacheKey: URL {
        let text = absoluteString
        if URL.isInCacheKeyForm(text) {
            return baseURL == nil ? self : (URL(string: text) ?? absoluteURL)
        }
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return absoluteURL }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if let scheme = components.scheme, components.port == URL.defaultPort(forScheme: scheme) {
            components.port = nil
        }
        if components.path.isEmpty, components.host != nil {
            components.path = "/"
        }
        components.percentEncodedPath = URL.removingDotSegments(URL.normalizingEscapes(components.percentEncodedPath))
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = URL.normalizingEscapes(query)
                .split(separator: "'", omittingEmptySubsequences: false).joined(separator: "%27")
        }
        components.fragment = nil
        return components.url ?? absoluteURL
    }

    /// The cache key (``cacheKey``) of the URL whose absolute text is `text`, as text; `nil` when
    /// `text` does not parse. Text already in the key's form is its own key, without a `URL` parsed.
    public static func cacheKeyText(ofAbsoluteString text: String) -> String? {
        if isInCacheKeyForm(text) { return text }
        return URL(string: text)?.cacheKey.absoluteString
    }

    /// Whether `text` is already a cache key: `http` or `https` in lower case, a lower-case host
    /// without credentials or a default port, a path without dot segments and a query without
    /// escapes to normalise, no fragment. Checked on the bytes, because
    /// every load asks, and rebuilding the URL through `URLComponents` costs more than the lookup.
    static func isInCacheKeyForm(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let count = bytes.count
            func byte(_ index: Int) -> UInt8 { index < count ? bytes[index] : 0 }
            guard byte(0) == UInt8(ascii: "h"), byte(1) == UInt8(ascii: "t"), byte(2) == UInt8(ascii: "t"),
                byte(3) == UInt8(ascii: "p")
            else { return false }
            let secure = byte(4) == UInt8(ascii: "s")
            let colon = secure ? 5 : 4
            guard byte(colon) == UInt8(ascii: ":"), byte(colon + 1) == UInt8(ascii: "/"), byte(colon + 2) == UInt8(ascii: "/")
            else { return false }
            // The authority: no upper case, credentials, escapes or fragment, up to the path's `/`.
            let authorityStart = colon + 3
            var index = authorityStart
            while index < count {
                let next = bytes[index]
                if next == UInt8(ascii: "/") || next == UInt8(ascii: "?") { break }
                if (next >= UInt8(ascii: "A") && next <= UInt8(ascii: "Z")) || next == UInt8(ascii: "@")
                    || next == UInt8(ascii: "%") || next == UInt8(ascii: "#")
                {
                    return false
                }
                index += 1
            }
            guard index > authorityStart, byte(index) == UInt8(ascii: "/") else { return false }
            let defaultPort: StaticString = secure ? ":443" : ":80"
            let portLength = defaultPort.utf8CodeUnitCount
            if index - authorityStart >= portLength,
                memcmp(bytes.baseAddress! + index - portLength, defaultPort.utf8Start, portLength) == 0
            {
                return false
            }
            // A port is written as its number: not empty, no leading zero (an IPv6 address's colons
            // are inside its brackets).
            var portStart = index
            while portStart > authorityStart, bytes[portStart - 1] != UInt8(ascii: ":"),
                bytes[portStart - 1] != UInt8(ascii: "]")
            {
                portStart -= 1
            }
            if portStart > authorityStart, bytes[portStart - 1] == UInt8(ascii: ":"),
                portStart == index || (bytes[portStart] == UInt8(ascii: "0") && portStart + 1 < index)
            {
                return false
            }
            let path = UnsafeBufferPointer(rebasing: bytes[index...])
            // No fragment in the path or query, a path without `.` or `..` segments, no escape
            // that the key writes otherwise, and no `'` in the query.
            guard memchr(path.baseAddress!, Int32(UInt8(ascii: "#")), path.count) == nil,
                !URL.hasDotSegment(path), !URL.hasEscapeToNormalize(path)
            else { return false }
            guard let query = memchr(path.baseAddress!, Int32(UInt8(ascii: "?")), path.count) else { return true }
            let queryStart = path.baseAddress!.distance(to: query.assumingMemoryBound(to: UInt8.self))
            return memchr(query, Int32(UInt8(ascii: "'")), path.count - queryStart) == nil
        }
    }

    /// Whether `bytes` hold an escape that ``normalizingEscapes(_:)`` writes otherwise: one of an
    /// unreserved character (`%41`, `%2E`: a dot that may spell a dot segment), or with a lower-case
    /// hex digit (`%2f`). Most URLs hold no `%`, which a `memchr` passes over.
    private static func hasEscapeToNormalize(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index + 2 < bytes.count {
            guard let found = memchr(bytes.baseAddress! + index, Int32(UInt8(ascii: "%")), bytes.count - index - 2)
            else { break }
            let percent = bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let high = bytes[percent + 1]
            let low = bytes[percent + 2]
            if let value = hexValue(high).flatMap({ high in hexValue(low).map { high << 4 | $0 } }),
                isUnreserved(value) || (high >= UInt8(ascii: "a") && high <= UInt8(ascii: "f"))
                    || (low >= UInt8(ascii: "a") && low <= UInt8(ascii: "f"))
            {
                return true
            }
            index = percent + 1
        }
        return false
    }

    /// `text` (percent-encoded) with its escapes of unreserved characters decoded and the hex
    /// digits of the others in upper case (RFC 3986 §6.2.2.1, §6.2.2.2); a `%` not followed by two
    /// hex digits stays as it is.
    static func normalizingEscapes(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                let value = high << 4 | low
                if isUnreserved(value) {
                    result.append(value)
                } else {
                    result += [UInt8(ascii: "%"), upperHexDigit(high), upperHexDigit(low)]
                }
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The value of a hex digit, `nil` for another byte.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The upper-case hex digit of `value` (0 to 15).
    private static func upperHexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// Whether `byte` is an unreserved character (RFC 3986 §2.3): a letter, a digit, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Whether the path at the start of `bytes` (up to a `?` or the end) has a `.` or `..` segment.
    /// Most paths hold dots only in file names, which a `memchr` passes over.
    private static func hasDotSegment(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = memchr(bytes.baseAddress!, Int32(UInt8(ascii: "?")), bytes.count)
            .map { bytes.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? bytes.count
        func endsSegment(_ index: Int) -> Bool { index == count || bytes[index] == UInt8(ascii: "/") }
        var index = 0
        while index < count {
            guard let found = memchr(bytes.baseAddress! + index, Int32(UInt8(ascii: ".")), count - index) else {
                break
            }
            let dot = bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if dot > 0, bytes[dot - 1] == UInt8(ascii: "/"),
                endsSegment(dot + 1) || (bytes[dot + 1] == UInt8(ascii: ".") && endsSegment(dot + 2))
            {
                return true
            }
            index = dot + 1
        }
        return false
    }

    /// `path` (percent-encoded, its escaped dots decoded by ``normalizingEscapes(_:)``) without its
    /// `.` and `..` segments (RFC 3986 §5.2.4), as the request line that libcurl sends for it has
    /// them removed.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var kept: [Substring] = []
        for (position, segment) in segments.enumerated() {
            let isLast = position == segments.count - 1
            if segment == "." {
                if isLast { kept.append("") }
            } else if segment == ".." {
                if kept.count > 1 { kept.removeLast() }
                if isLast { kept.append("") }
            } else {
                kept.append(segment)
            }
        }
        return kept.joined(separator: "/")
    }

    /// Whether both URLs have the same origin: scheme, host and port, default ports included (RFC 6454).
    public func isSameOrigin(as other: URL) -> Bool {
        guard let scheme = scheme?.lowercased(), let otherScheme = other.scheme?.lowercased(),
            let host = host?.lowercased(), let otherHost = other.host?.lowercased()
        else { return false }
        return scheme == otherScheme && host == otherHost && effectivePort == other.effectivePort
    }

    /// The URL's origin as an `Origin` field writes it (RFC 6454 §6.1): scheme, host, and the port
    /// unless it is the scheme's default; `nil` without a scheme or host.
    public var serializedOrigin: String? {
        guard let scheme = scheme?.lowercased(), let host = host(percentEncoded: true)?.lowercased() else {
            return nil
        }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let port = port.flatMap { $0 == URL.defaultPort(forScheme: scheme) ? nil : $0 }
        return "\(scheme)://\(bracketed)" + (port.map { ":\($0)" } ?? "")
    }

    /// The port a connection for this URL goes to: the explicit one, else the scheme's default;
    /// `nil` for a scheme without a known default.
    public var effectivePort: Int? {
        port ?? scheme.flatMap(URL.defaultPort(forScheme:))
    }

    /// 80 for http, 443 for https, `nil` otherwise.
    public static func defaultPort(forScheme scheme: String) -> Int? {
        ["http": 80, "https": 443][scheme.lowercased()]
    }
}

extension URL {
    /// The URL for messages and logs: any `user:password@` credentials replaced by `***@`.
    public var redactedForMessages: String {
        guard user != nil || password != nil,
            var components = URLComponents(url: self, resolvingAgainstBaseURL: true)
        else { return absoluteString }
        components.user = "***"
        components.password = nil
        return components.string ?? "<URL with credentials>"
    }

    /// Whether the scheme is `http` or `https`, the only ones webcache fetches.
    public var isHTTP: Bool {
        guard let scheme = scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && host?.isEmpty == false
    }
}
