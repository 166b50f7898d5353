import FoundationEssentials
import HTTPCore
import WebCache

/// What the gateway sends back for one request: the head, how it was served, and the body.
struct ProxyResponse: Sendable {
    /// How the body is delimited on the wire.
    enum BodyLength: Sendable, Equatable {
        /// No body at all (204, 1xx).
        case none
        /// `Content-Length` bytes; for `HEAD` and 304, the length a `GET` would be sent with.
        case known(UInt64)
        /// Sent chunked (or until the connection closes, for HTTP/1.0 clients).
        case unknown
        /// For `HEAD` and 304 when the length a `GET` would have is not known: no length is
        /// declared, and the connection closes after the head.
        case undeclared

        /// The length to declare, when it is known.
        var declared: UInt64? {
            if case .known(let count) = self { count } else { nil }
        }
    }

    var status: Int
    var headers: HTTPHeaders
    var source: ResponseSource?
    var length: BodyLength
    /// The body to stream; `nil` when there is none to send.
    var body: WebResponse.Body?

    /// A short plain-text answer from the gateway itself, such as an error.
    static func text(_ status: Int, _ message: String) -> ProxyResponse {
        let data = Data((message.hasSuffix("\n") ? message : message + "\n").utf8)
        return ProxyResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
            source: nil, length: .known(UInt64(data.count)), body: WebResponse.Body(data: data))
    }
}
