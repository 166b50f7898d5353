/// An error of the local origin server: binding failed, a socket call failed, a client went away.
public struct OriginError: Error, Sendable, CustomStringConvertible {
    /// A complete sentence saying what went wrong.
    public var message: String

    /// Creates an error with a message.
    public init(message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
