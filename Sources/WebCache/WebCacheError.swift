import HTTPCore
import Transport

/// An error from the webcache library: a code to switch on, a message for people, and the cause.
///
/// Messages are complete sentences that name the URL, file or value involved. They never contain
/// credentials: `Authorization` and `Cookie` values are not part of any message.
public struct WebCacheError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, such as `notCached`.
        public var description: String { name }

        /// The URL cannot be used: not http(s), relative without an instance URL, or malformed.
        public static let invalidURL = Code("invalidURL")
        /// The policy forbids the network and the store has no matching entry.
        public static let notCached = Code("notCached")
        /// The network failed (connection, TLS, timeout, reset) and nothing stored could stand in.
        public static let network = Code("network")
        /// Too many redirects, or a redirect loop.
        public static let redirects = Code("redirects")
        /// A body or header exceeded a configured limit.
        public static let tooLarge = Code("tooLarge")
        /// The store could not be opened, read or written.
        public static let store = Code("store")
        /// A stored response's body no longer matches the checksums it was stored with, and the policy
        /// forbids the network, or the body was already partly delivered when that showed.
        public static let damaged = Code("damaged")
        /// Signing in failed: the provider failed or the instance refused a fresh token.
        public static let authorization = Code("authorization")
        /// The URL is outside what this run may fetch (a denied host, or a private address reached from a public page).
        public static let forbidden = Code("forbidden")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A complete sentence for people, naming the URL, file or value involved.
    public var message: String
    /// The underlying error, if any (a transport, store or session error).
    public var cause: (any Error)?

    /// Creates an error with a message that says what went wrong and, where it helps, how to fix it.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// Whether the same request may succeed if it is sent again: a network failure the transport
    /// did not find permanent (``TransportError/isTransient``), such as a refused connection or a
    /// timeout, but not a URL libcurl refuses as malformed.
    public var isTransient: Bool {
        code == .network && (cause as? TransportError)?.isTransient != false
    }

    /// The message, followed by the underlying error when there is one.
    public var description: String {
        guard let cause else { return message }
        let underlying = String(describing: cause)
        // A lower layer's message is often already the whole story, or the story with details
        // added (a transport error's libcurl code and text); say it once.
        if message.contains(underlying) { return message }
        if underlying.hasPrefix(message) { return underlying }
        return MessageText.withUnderlying(message, underlying)
    }
}
