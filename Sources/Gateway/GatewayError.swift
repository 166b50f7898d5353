/// An error from starting the gateway: a configuration it cannot use, a socket it cannot open, or an
/// HTTP server library it cannot load.
public struct GatewayError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; more kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// A configuration value cannot be used, such as a bind address that is not an IP address.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The listening socket could not be opened (the port is taken, or the address is not local).
        public static let cannotListen = Code("cannotListen")
        /// libmicrohttpd, the HTTP server the gateway runs on, could not be loaded.
        public static let unavailable = Code("unavailable")

        /// The code's name, such as `cannotListen`.
        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// A complete sentence that says what failed and names the value involved.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
