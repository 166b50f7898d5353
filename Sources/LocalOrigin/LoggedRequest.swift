import Foundation
import HTTPCore

/// One entry of the server's request log.
public struct LoggedRequest: Sendable, Hashable {
    /// The request method.
    public var method: HTTPMethod
    /// The request target, path and query, as sent.
    public var target: String
    /// The header fields as received.
    public var headers: HTTPHeaders
    /// The size of the request content in bytes.
    public var bodyLength: Int
    /// When the request was read.
    public var time: Date

    /// The target's path without the query.
    public var path: String {
        target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }
}
