import HTTPCore

/// A request could not be given a session, or the instance refused it.
public struct SessionError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The replay with a fresh token was redirected to the login page again, or refused with an
        /// expiry status (``SessionPolicy/expiryStatuses``).
        public static let freshTokenRefused = Code("freshTokenRefused")
        /// A guest request was redirected to the login page, or refused with an expiry status.
        public static let guestRedirectedToLogin = Code("guestRedirectedToLogin")
        /// The authorization provider failed; ``SessionError/cause`` holds its error.
        public static let tokenUnavailable = Code("tokenUnavailable")
        /// The user signed out (``Session/logout()``) after the request's work began: it is not sent,
        /// or its response is dropped, so that nothing of the signed-out session comes back.
        public static let signedOut = Code("signedOut")

        /// The code's name, such as `tokenUnavailable`.
        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, as a complete sentence naming the request.
    public var message: String
    /// The underlying error, such as an ``AuthorizationError``.
    public var cause: (any Error)?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The message, followed by the underlying error when there is one.
    public var description: String {
        MessageText.withCause(message, cause)
    }
}
