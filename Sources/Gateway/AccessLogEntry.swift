import HTTPCore
import WebCache

/// One request the gateway answered, for an access log.
public struct AccessLogEntry: Sendable, Hashable {
    /// The request method.
    public var method: HTTPMethod
    /// The URL the request was mapped to, or the request target as sent when it could not be mapped.
    public var url: String
    /// The status code sent to the client.
    public var status: Int
    /// How the response was served (hit, revalidated, network, stale); `nil` when the gateway
    /// answered by itself (an error, a refused `CONNECT`).
    public var source: ResponseSource?
    /// The body bytes sent to the client.
    public var bodyBytes: Int64
    /// Whether the whole body reached the client (`false` when the client left early or reading failed).
    public var isComplete: Bool

    /// The entry as one access-log line: `GET http://example.com/ 200 hit 1234`.
    public var line: String {
        let served = source?.description ?? "gateway"
        return "\(method.rawValue) \(url) \(status) \(served) \(bodyBytes)\(isComplete ? "" : " incomplete")"
    }
}
