/// Why a DevTools command did not get a result.
public enum DevToolsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The browser answered with a protocol error.
    case protocolError(code: Int, message: String)
    /// The connection ended (the browser exited or crashed, or was closed) before the reply came.
    case disconnected(reason: String)
    /// No reply came within the time allowed: the browser is taken to hang.
    case unresponsive(method: String, seconds: Int)

    public var description: String {
        switch self {
        case .protocolError(let code, let message): "The browser refused the command: \(message) (\(code))."
        case .disconnected(let reason): "The browser's connection ended: \(reason)."
        case .unresponsive(let method, let seconds): "The browser did not answer \(method) within \(seconds) s."
        }
    }
}
