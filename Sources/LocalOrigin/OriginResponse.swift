import Foundation
import HTTPCore

/// What a handler answers: a status, header fields and a body.
///
/// The server adds `Content-Length` for ``Body-swift.enum/bytes(_:)`` bodies and
/// `Transfer-Encoding: chunked` for ``Body-swift.enum/stream(contentLength:_:)`` bodies without a
/// length, plus `Date` when the handler set none. Responses to `HEAD`, and 1xx, 204 and 304
/// responses, are sent without content whatever the body says.
public struct OriginResponse: Sendable {
    /// How the content of a response is produced.
    public enum Body: Sendable {
        /// The whole content, known in advance.
        case bytes(Data)
        /// Content produced over time: the closure writes chunks with the writer and returns when done.
        /// With a `contentLength` the response is delimited by length, otherwise it is chunked.
        /// A thrown error (for example when the client has gone) ends the connection.
        case stream(contentLength: Int? = nil, @Sendable (OriginBodyWriter) throws -> Void)
        /// Misbehaviour: the server sends nothing itself, the closure writes whatever bytes it wants
        /// (status line included) on the raw socket; the connection is closed when it returns.
        case raw(@Sendable (OriginSocket) throws -> Void)
    }

    /// The status code.
    public var status: Int
    /// The header fields to send.
    public var headers: HTTPHeaders
    /// The content.
    public var body: Body
    /// Extra time the server waits before it sends this response.
    public var delay: Duration

    /// Creates a response.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: Body = .bytes(Data()), delay: Duration = .zero) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }

    /// A response whose content is `text` in UTF-8, with the given content type.
    public static func text(
        _ text: String,
        status: Int = 200,
        contentType: String = "text/plain; charset=utf-8",
        headers: HTTPHeaders = [:]
    ) -> OriginResponse {
        var all = headers
        if !all.contains("Content-Type") { all.append(name: "Content-Type", value: contentType) }
        return OriginResponse(status: status, headers: all, body: .bytes(Data(text.utf8)))
    }

    /// The standard reason phrase for a status code.
    public static func reasonPhrase(for status: Int) -> String {
        HTTPStatus.reasonPhrase(status) ?? "Status \(status)"
    }
}

/// Writes the content of a streamed response; given to ``OriginResponse/Body-swift.enum/stream(contentLength:_:)``.
public struct OriginBodyWriter: Sendable {
    let socket: OriginSocket
    let chunked: Bool

    /// Sends one piece of content now. Throws when the client has gone or the server is stopping.
    public func write(_ data: Data) throws {
        guard !data.isEmpty else { return }
        if chunked {
            var framed = Data(String(data.count, radix: 16).utf8)
            framed.append(contentsOf: [13, 10])
            framed.append(data)
            framed.append(contentsOf: [13, 10])
            try socket.write(framed)
        } else {
            try socket.write(data)
        }
    }

    /// Sends `text` in UTF-8.
    public func write(_ text: String) throws {
        try write(Data(text.utf8))
    }

    /// The raw socket, for a stream that misbehaves part-way (see ``OriginSocket``).
    public var rawSocket: OriginSocket { socket }
}
