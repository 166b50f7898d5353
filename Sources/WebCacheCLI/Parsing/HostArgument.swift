import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A host given on the command line (`--allow-host`, `--deny-host`, `--host`): a name or an IP
/// address, compared exactly (in any case) and on every port. An IPv6 address may be given with or
/// without its brackets, an internationalised name in Unicode or in punycode.
///
/// Anything else is a usage error that says what a host looks like: a URL (with its host
/// suggested), a host with a port, a pattern such as `*.example.com`, an empty value, or a value
/// that is no valid name or address (``HTTPURLCheck/problem(withHost:)``).
struct HostArgument: Sendable, Equatable {
    /// The host as `URL.host` gives it, in lower case: punycode for an internationalised name, an
    /// IPv6 address without brackets. The preload engine compares hosts in this form.
    var urlHost: String
    /// The host as the store keeps it and `inspect` lists it (`URLComponents.host` of the URL, in
    /// lower case): an internationalised name in Unicode, an IPv6 address in brackets.
    var storedHost: String

    /// Checks `text`, given for `option` (as help spells it: `--allow-host <host>`).
    /// - Throws: ``UsageError`` naming the value and the option when `text` is not a host.
    init(_ text: String, for option: String, command: CommandSpec) throws(UsageError) {
        func refuse(_ reason: String) -> UsageError {
            UsageError("The value '\(MessageText.excerpt(text, limit: 100))' is invalid for '\(option)': \(reason)",
                       command: command)
        }
        let looks = "a host is a name such as example.com or an IP address such as 192.0.2.1 or ::1, "
            + "matched exactly and on every port"
        InternationalNames.prepare(forHost: text)
        if text.contains("://") {
            if let host = URL(string: text).flatMap(HTTPURLCheck.encodedHost(of:)),
                HTTPURLCheck.problem(withHost: host) == nil
            {
                throw refuse("it is a URL; give its host alone: \(host)")
            }
            throw refuse("it is a URL, not a host; \(looks)")
        }
        if text.contains("*") {
            throw refuse("hosts are matched exactly, not as patterns; give each host, such as www.example.com")
        }
        // A bare IPv6 address is bracketed, as in a URL.
        var bytes = in6_addr()
        let spelled = inet_pton(AF_INET6, text, &bytes) == 1 ? "[\(text)]" : text
        guard !text.isEmpty, let url = URL(string: "http://\(spelled)/"), url.user == nil, url.password == nil,
            url.path(percentEncoded: true) == "/", url.query == nil, url.fragment == nil,
            let host = HTTPURLCheck.encodedHost(of: url), HTTPURLCheck.problem(withHost: host) == nil,
            let urlHost = url.host?.lowercased(),
            let storedHost = URLComponents(string: url.absoluteString)?.host?.lowercased()
        else {
            throw refuse(looks)
        }
        if url.port != nil {
            throw refuse("a host is matched on every port; give it without one: \(host)")
        }
        self.urlHost = urlHost
        self.storedHost = storedHost
    }

    /// Every value given for the repeatable option `key`, checked.
    /// - Throws: ``UsageError`` naming the first value that is not a host.
    static func all(_ arguments: ParsedArguments, _ key: String) throws(UsageError) -> [HostArgument] {
        var hosts: [HostArgument] = []
        for value in arguments.allValues(key) {
            hosts.append(try HostArgument(value, for: "--\(key) <host>", command: arguments.spec))
        }
        return hosts
    }
}
