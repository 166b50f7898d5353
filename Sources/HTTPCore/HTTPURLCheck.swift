import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one check of a URL webcache is asked to request, wherever it comes from (a URL file, the
/// command line, a caller of the library): an absolute `http` or `https` URL whose host is a valid
/// name or IP address and whose port, if any, is from 1 to 65535.
///
/// A host name is made of labels of ASCII letters, digits, `-`, `_` and `~` (RFC 3986's unreserved
/// characters, which libcurl passes on to the resolver) separated by dots; a final dot is allowed.
/// An internationalised name passes once Foundation has converted it to punycode, as `URL(string:)`
/// does; a percent-encoded one is decoded first. A name whose last label is a number must be an
/// IPv4 address (`127.0.0.1`, or a shorter form such as `127.1`), as in the WHATWG URL Standard; an
/// IPv6 address goes in brackets, optionally with a zone (`[fe80::1%25eth0]`). Paths, queries and
/// fragments are left as they are.
public enum HTTPURLCheck {
    /// Why a URL cannot be requested.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, in words that follow the URL: `has no host`, `is not an http or https URL`.
        public var reason: String

        /// The reason.
        public var description: String { reason }
    }

    /// The URL `text` spells, when it is one webcache can request.
    ///
    /// - Throws: ``Problem`` when `text` does not parse as a URL, is not an absolute `http` or
    ///   `https` URL, has no host, or has a host or port that cannot be.
    ///
    /// - Parameter base: the URL a relative `text` resolves against; `nil` when `text` must be absolute.
    public static func url(_ text: String, relativeTo base: URL? = nil) throws(Problem) -> URL {
        guard let url = URL(parsing: text, relativeTo: base)?.absoluteURL else {
            throw Problem(reason: "is not a valid URL")
        }
        if let problem = problem(with: url) { throw problem }
        return url
    }

    /// The host of `url` as the URL spells it (percent-encoded, an IPv6 address in brackets);
    /// `nil` when it has none.
    public static func encodedHost(of url: URL) -> String? {
        guard let host = URLComponents(url: url, resolvingAgainstBaseURL: true)?.encodedHost, !host.isEmpty else {
            return nil
        }
        return host
    }

    /// The host of `url` as ``encodedHost(of:)`` gives it, when it is a name or IPv4 address in
    /// plain ASCII without percent-encoding (as most are), read without parsing the URL again;
    /// `nil` otherwise. `URL` gives a host in brackets without them, so a URL with a bracket
    /// anywhere is left to ``encodedHost(of:)``.
    private static func plainHost(of url: URL) -> String? {
        guard let host = url.host(percentEncoded: true), !host.isEmpty,
            host.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "%") && $0 != UInt8(ascii: ":") }),
            !url.absoluteString.utf8.contains(UInt8(ascii: "["))
        else { return nil }
        return host
    }

    /// Why `url` cannot be requested, or `nil` when it can.
    public static func problem(with url: URL) -> Problem? {
        guard let scheme = url.scheme?.lowercased() else {
            return Problem(reason: "is not an absolute http or https URL")
        }
        guard scheme == "http" || scheme == "https" else {
            return Problem(reason: "is not an http or https URL")
        }
        guard let host = plainHost(of: url) ?? encodedHost(of: url) else { return Problem(reason: "has no host") }
        if let problem = problem(withHost: host) { return problem }
        if let port = url.port, !(1...65535).contains(port) {
            return Problem(reason: "has the port \(port), which is not a number from 1 to 65535")
        }
        return nil
    }

    /// Why `host`, as a URL spells it (percent-encoded, an IPv6 address in brackets), is not a
    /// valid host, or `nil` when it is.
    public static func problem(withHost host: String) -> Problem? {
        // Messages are made only for a host that fails: this runs for every URL a preload meets.
        func invalid(_ what: String) -> Problem {
            Problem(reason: "has the host '\(MessageText.excerpt(host, limit: 80))', which is not \(what)")
        }
        if host.hasPrefix("[") {
            return isIPv6Literal(host) ? nil : invalid("a valid IPv6 address")
        }
        guard let name = asciiName(host) else { return invalid("a valid host name or IP address") }
        switch nameForm(name) {
        case .invalid:
            return invalid("a valid host name or IP address")
        case .numbered(let withoutRootDot):
            var address = in_addr()
            guard inet_aton(withoutRootDot, &address) != 0 else { return invalid("a valid IPv4 address") }
            return nil
        case .named:
            return nil
        }
    }

    /// What an ASCII host name is: labels of ``isNameByte(_:)`` bytes, none empty, separated by
    /// dots, with one final dot allowed (the root's empty label); `numbered` when its last label is
    /// digits alone, and so must be an IPv4 address (given without the final dot).
    private enum NameForm {
        case invalid
        case named
        case numbered(String)
    }

    /// The ``NameForm`` of `name`, read from its bytes in one pass (every URL a preload meets asks).
    private static func nameForm(_ name: String) -> NameForm {
        var name = name
        return name.withUTF8 { bytes in
            var end = bytes.count
            if end > 0, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }  // the root's empty label
            guard end > 0 else { return .invalid }
            var labelStart = 0
            var lastLabelIsDigits = true
            for index in 0..<end {
                let byte = bytes[index]
                if byte == UInt8(ascii: ".") {
                    guard index > labelStart else { return .invalid }
                    labelStart = index + 1
                    lastLabelIsDigits = true
                } else {
                    guard isNameByte(byte) else { return .invalid }
                    lastLabelIsDigits = lastLabelIsDigits && byte >= 48 && byte <= 57
                }
            }
            guard end > labelStart else { return .invalid }
            guard lastLabelIsDigits else { return .named }
            return .numbered(String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self))
        }
    }

    /// `host` percent-decoded and, when that leaves letters outside ASCII, converted to punycode
    /// by Foundation; `nil` when neither gives ASCII text.
    private static func asciiName(_ host: String) -> String? {
        // Most hosts are plain ASCII names: nothing to decode or convert (checked on the bytes, as
        // every load asks).
        if host.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "%") }) { return host }
        guard let decoded = host.percentDecoded else { return nil }
        if decoded.utf8.allSatisfy({ $0 < 0x80 }) { return decoded }
        InternationalNames.prepare(forHost: decoded)
        guard let converted = URLComponents(string: "http://\(decoded)/")?.encodedHost,
            converted.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "%") })
        else { return nil }
        return converted
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// Whether `text` is `[`, an IPv6 address, optionally `%25` and a zone of unreserved
    /// characters (RFC 6874), and `]`.
    private static func isIPv6Literal(_ text: String) -> Bool {
        guard text.hasPrefix("["), text.hasSuffix("]"), text.count > 2 else { return false }
        var address = Substring(text.dropFirst().dropLast())
        if let percent = address.firstRange(of: "%25") {
            let zone = address[percent.upperBound...]
            guard !zone.isEmpty, zone.utf8.allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: ".") }) else {
                return false
            }
            address = address[..<percent.lowerBound]
        }
        var bytes = in6_addr()
        return inet_pton(AF_INET6, String(address), &bytes) == 1
    }
}
