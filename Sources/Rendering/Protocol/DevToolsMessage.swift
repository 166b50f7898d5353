import FoundationEssentials
import HTTPCore

/// One message from the browser on its DevTools pipe: the reply to a command, or an event.
enum DevToolsMessage: Sendable, Hashable {
    /// The reply to command `id`: its result, or the protocol's error message.
    case reply(id: Int, result: Result<JSONValue, DevToolsError>)
    /// An event, for the target session `sessionId` (`nil`: the browser itself).
    case event(DevToolsEvent)

    /// Parses one NUL-delimited message; `nil` for something that is neither a reply nor an event.
    static func parse(_ data: Data) -> DevToolsMessage? {
        guard let value = try? JSONValue.parse(data) else { return nil }
        if let id = value["id"]?.intValue {
            if let error = value["error"] {
                let message = error["message"]?.stringValue ?? "unknown error"
                let code = error["code"]?.intValue ?? 0
                return .reply(id: id, result: .failure(.protocolError(code: code, message: message)))
            }
            return .reply(id: id, result: .success(value["result"] ?? .object([:])))
        }
        guard let method = value["method"]?.stringValue else { return nil }
        return .event(DevToolsEvent(method: method, params: value["params"] ?? .object([:]),
                                    sessionID: value["sessionId"]?.stringValue))
    }

    /// The bytes of a command on the pipe, NUL included.
    static func command(id: Int, method: String, params: JSONValue, sessionID: String?) -> Data {
        var members: [String: JSONValue] = ["id": .integer(Int64(id)), "method": .string(method), "params": params]
        if let sessionID { members["sessionId"] = .string(sessionID) }
        var data = JSONValue.object(members).serialized()
        data.append(0)
        return data
    }
}

/// An event the browser sent.
public struct DevToolsEvent: Sendable, Hashable {
    /// The event's name, such as `Fetch.requestPaused`.
    public var method: String
    /// Its parameters.
    public var params: JSONValue
    /// The target session it belongs to; `nil` for the browser's own events.
    public var sessionID: String?
}
