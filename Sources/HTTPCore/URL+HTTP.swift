import Foundation

extension URL {
    /// The URL as a cache key: scheme and host lowercased, the default port (80 for http, 443 for
    /// https) and the fragment removed, and an empty path written `/`. Two spellings of one
    /// resource give one key, so an entry stored under one is found, and invalidated, under the other.
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
    /// without credentials or a default port, a path, no fragment. Checked on the bytes, because
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
            // No fragment in the path or query.
            return memchr(bytes.baseAddress! + index, Int32(UInt8(ascii: "#")), count - index) == nil
        }
    }

    /// Whether both URLs have the same origin: scheme, host and port, default ports included (RFC 6454).
    public func isSameOrigin(as other: URL) -> Bool {
        guard let scheme = scheme?.lowercased(), let otherScheme = other.scheme?.lowercased(),
            let host = host?.lowercased(), let otherHost = other.host?.lowercased()
        else { return false }
        return scheme == otherScheme && host == otherHost && effectivePort == other.effectivePort
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
