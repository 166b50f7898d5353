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
            let authorityStart: Int
            if bytes.starts(with: "http://".utf8) {
                authorityStart = 7
            } else if bytes.starts(with: "https://".utf8) {
                authorityStart = 8
            } else {
                return false
            }
            guard
                let pathStart = bytes[authorityStart...].firstIndex(where: {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?")
                }),
                bytes[pathStart] == UInt8(ascii: "/"), !bytes.contains(UInt8(ascii: "#"))
            else { return false }
            let authority = bytes[authorityStart..<pathStart]
            guard !authority.isEmpty,
                !authority.contains(where: {
                    ($0 >= 65 && $0 <= 90) || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "%")
                })
            else { return false }
            let defaultPort = authorityStart == 8 ? ":443".utf8 : ":80".utf8
            return !(authority.count >= defaultPort.count && authority.suffix(defaultPort.count).elementsEqual(defaultPort))
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
