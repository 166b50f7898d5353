/// A small logging hook that libraries take from their caller, after swift-log's shape.
///
/// Library code never prints: it logs through the `Logger` it was configured with, which drops
/// everything by default. The CLI passes one that writes to standard error.
///
/// ```swift
/// let logger = Logger(level: .debug) { level, message in print("[\(level)] \(message)") }
/// logger.debug("cache hit for \(url)")
/// ```
public struct Logger: Sendable {
    /// Severity, from the most detailed to the most serious.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        /// Parses `trace`, `debug`, `info`, `warning` (or `warn`) and `error`.
        public init?(name: String) {
            switch name.lowercased() {
            case "trace": self = .trace
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }
    }

    /// Receives each message at or above ``level``.
    public typealias Sink = @Sendable (Level, String) -> Void

    /// Messages below this level are not even formatted.
    public var level: Level
    private let sink: Sink?

    /// A logger that sends messages at or above `level` to `sink`.
    public init(level: Level, sink: @escaping Sink) {
        self.level = level
        self.sink = sink
    }

    /// A logger that drops everything.
    public static let disabled = Logger()

    private init() {
        self.level = .error
        self.sink = nil
    }

    /// Logs `message` if `level` is enabled; the message is built only then.
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard let sink, level >= self.level else { return }
        sink(level, message())
    }

    public func trace(_ message: @autoclosure () -> String) { log(.trace, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
