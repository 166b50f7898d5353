import Foundation
import HTTPCore

/// What the HTTP server has read of one request so far. It lives on the thread of its connection
/// (one thread per connection), is created when the request line arrives and released when the
/// request completes, and is reached from the server's callbacks through a context pointer.
final class ConnectionRequest {
    /// The request target exactly as the client sent it.
    let target: String
    var method = HTTPMethod.get
    var headers: HTTPHeaders = [:]
    /// The body as it arrives, handed on to the submitted request; `nil` without content.
    var bodyStream: RequestBodyStream?
    /// How many body bytes have arrived.
    var bodyBytes = 0
    /// Whether the access handler has seen the head.
    var started = false
    /// Whether the body is larger than the gateway accepts.
    var tooLarge = false
    /// The client's IP address (4 or 16 bytes; empty when unknown).
    var client: [UInt8] = []
    /// The exchange carrying the response, once the request was submitted.
    var exchange: Exchange?

    init(target: String) {
        self.target = target
    }
}
