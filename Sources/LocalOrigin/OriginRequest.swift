import Foundation
import HTTPCore

/// A request as the origin server received it.
public struct OriginRequest: Sendable, Hashable {
    /// The request method, such as `GET`.
    public var method: HTTPMethod
    /// The request target as sent: the path with its query, such as `/a/b.css?v=2`.
    public var target: String
    /// The protocol version from the request line, such as `HTTP/1.1`.
    public var version: String
    /// The header fields in the order they were received.
    public var headers: HTTPHeaders
    /// The request content (empty when there is none).
    public var body: Data
    /// When the server finished reading the request.
    public var receivedAt: Date

    /// Creates a request; the server builds these, tests may build them to call a handler directly.
    public init(
        method: HTTPMethod,
        target: String,
        version: String = "HTTP/1.1",
        headers: HTTPHeaders = [:],
        body: Data = Data(),
        receivedAt: Date = Date()
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.receivedAt = receivedAt
    }

    /// The target's path without the query, still percent-encoded.
    public var path: String {
        if let question = target.firstIndex(of: "?") { return String(target[..<question]) }
        return target
    }

    /// The target's query without the `?`, or `nil` when there is none.
    public var query: String? {
        guard let question = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: question)...])
    }

    /// The value of the query parameter `name`, percent-decoded; `nil` when absent.
    public func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.first.map(String.init) == name {
                let raw = parts.count > 1 ? String(parts[1]) : ""
                return raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw
            }
        }
        return nil
    }
}
