import CCurl
import FoundationEssentials
import HTTPCore

/// A failure to exchange a request and response with a server.
///
/// Messages name the URL (without any user name or password in it) but never header values.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; new kinds can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A short name for the kind.
        public let rawValue: String

        /// The host name could not be resolved.
        public static let hostNotFound = Code(rawValue: "hostNotFound")
        /// The connection could not be made (refused, unreachable, or connect timeout).
        public static let connectFailed = Code(rawValue: "connectFailed")
        /// The transfer took too long or stalled.
        public static let timedOut = Code(rawValue: "timedOut")
        /// TLS failed: handshake, or the server's certificate did not verify.
        public static let tls = Code(rawValue: "tls")
        /// The proxy could not be used.
        public static let proxy = Code(rawValue: "proxy")
        /// The response head was larger than allowed.
        public static let headerTooLarge = Code(rawValue: "headerTooLarge")
        /// The response content was larger than allowed.
        public static let bodyTooLarge = Code(rawValue: "bodyTooLarge")
        /// The request could not be sent as given (bad URL, header or option).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// The server broke the protocol or the connection ended early.
        public static let protocolError = Code(rawValue: "protocolError")
        /// The host resolved to an address the request refuses (``HTTPRequest/refusesPrivateAddresses``).
        public static let addressRefused = Code(rawValue: "addressRefused")
        /// libcurl could not be loaded or initialised: no request can be sent in this process.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The request was not sent: its ``SendCondition`` no longer held when it was about to leave.
        public static let withdrawn = Code(rawValue: "withdrawn")
        /// Any other network failure.
        public static let networkError = Code(rawValue: "networkError")

        /// The short name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A complete sentence saying what went wrong, naming the URL.
    public var message: String
    /// The URL of the request, without credentials.
    public var url: URL?
    /// The libcurl result code, when libcurl reported the failure.
    public var curlCode: Int?
    /// libcurl's text for ``curlCode`` and its detailed message.
    public var curlText: String?
    /// The underlying error, when another layer reported the failure.
    public var cause: (any Error)?

    /// Creates an error.
    public init(
        code: Code,
        message: String,
        url: URL? = nil,
        curlCode: Int? = nil,
        curlText: String? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.url = url
        self.curlCode = curlCode
        self.curlText = curlText
        self.cause = cause
    }

    /// The request to `url` was not sent because `condition` no longer held when it was about to leave.
    package static func withdrawn(_ url: URL, condition: SendCondition) -> TransportError {
        TransportError(
            code: .withdrawn,
            message: "The request to \(url.redactedForMessages) was withdrawn before it was sent: "
                + "\(condition.reason).",
            url: url)
    }

    /// The request to `url` was refused because its host resolved to `address`, which is not public.
    package static func addressRefused(_ url: URL, address: String, curlCode: Int? = nil) -> TransportError {
        TransportError(
            code: .addressRefused,
            message: "Refused to send the request to \(url.redactedForMessages): its host resolved to \(address), "
                + "a loopback, private or link-local address, which this request may not reach.",
            url: url, curlCode: curlCode)
    }

    /// Whether sending the same request again may succeed. It cannot when the request could not be
    /// sent as given (``Code/invalidRequest``: a URL libcurl refuses as malformed, a malformed header
    /// field, an option), when it was withdrawn, when the response was over a limit or the address
    /// was refused, when libcurl is unavailable, or when the server answered in something that is
    /// not HTTP (libcurl's "unsupported protocol", left once the request was sent again on a fresh
    /// connection).
    public var isTransient: Bool {
        switch code {
        case .invalidRequest, .headerTooLarge, .bodyTooLarge, .addressRefused, .unavailable, .withdrawn: false
        default: curlCode != Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue)
        }
    }

    /// The message, followed by libcurl's code and text when there are some.
    public var description: String {
        var text = message
        if let curlCode, let curlText { text += " (curl error \(curlCode): \(curlText))" }
        return text
    }
}

extension URL {
    /// The URL without user name and password, for messages.
    var redactedForMessages: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false),
            components.user != nil || components.password != nil
        else { return absoluteString }
        components.user = nil
        components.password = nil
        return components.string ?? absoluteString
    }
}
