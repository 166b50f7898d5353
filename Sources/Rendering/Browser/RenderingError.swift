/// Why a browser could not be used or a page could not be rendered.
public struct RenderingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it was.
    public struct Code: Hashable, Sendable {
        private let name: String

        /// No browser executable was found, or it cannot be run.
        public static let browserMissing = Code(name: "browserMissing")
        /// The browser started but did not come up, or exited, crashed or hung while it held the page.
        public static let browserFailed = Code(name: "browserFailed")
        /// The page could not be loaded (its navigation failed).
        public static let navigationFailed = Code(name: "navigationFailed")
    }

    public var code: Code
    /// A sentence saying what went wrong and how to fix it.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
