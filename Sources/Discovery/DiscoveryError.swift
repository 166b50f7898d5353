import FoundationEssentials
import HTTPCore

/// An error from the Discovery module, such as a web app manifest that is not valid JSON.
public struct DiscoveryError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that callers can compare.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// The manifest is not JSON, or not a JSON object.
        public static let invalidManifest = Code(name: "invalidManifest")

        /// The code's name, such as `invalidManifest`.
        /// The message, followed by the underlying error if there is one.
    public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// A complete sentence naming the input, for people.
    public var message: String
    /// The URL of the input that could not be read.
    public var url: URL
    /// The underlying error, if any.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(code: Code, message: String, url: URL, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.cause = cause
    }

    public var description: String {
        MessageText.withCause(message, cause)
    }
}
