import HTTPCore

/// An authorization provider could not produce a token.
///
/// Messages name the command, file or endpoint involved, never a token or a command's output.
public struct AuthorizationError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// A token command could not be started or exited with a non-zero status.
        public static let commandFailed = Code("commandFailed")
        /// A token command succeeded but printed nothing, or something that is not a token.
        public static let commandProducedNoToken = Code("commandProducedNoToken")
        /// A token file could not be read.
        public static let fileUnreadable = Code("fileUnreadable")
        /// A token file is empty, or holds something that is not a token.
        public static let fileEmpty = Code("fileEmpty")
        /// A configured token has expired and cannot be renewed.
        public static let tokenExpired = Code("tokenExpired")
        /// The token endpoint answered with an OAuth error (RFC 6749 §5.2).
        public static let tokenEndpointRejected = Code("tokenEndpointRejected")
        /// The token endpoint's answer could not be used.
        public static let invalidTokenResponse = Code("invalidTokenResponse")
        /// The token endpoint could not be reached.
        public static let tokenEndpointUnreachable = Code("tokenEndpointUnreachable")

        /// The code's name, such as `commandFailed`.
        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong and how to fix it, as a complete sentence.
    public var message: String
    /// The underlying error, if any.
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
