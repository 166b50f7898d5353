import HTTPCore

/// The memory the HTTP server gives each connection, and what a request's head and a response's
/// head take of it.
///
/// libmicrohttpd keeps a request's head in its connection's buffer, with an entry for each field,
/// query argument and cookie (and a copy of the cookies), while it writes the response's head into
/// what is left; a response head that does not fit is never sent: the server closes the
/// connection without a word. The gateway answers such a request 502 naming the sizes instead.
/// The server zeroes the whole buffer after every request, so its size is also a cost of each
/// request: it is the largest request head accepted and ``responseHeadRoom``, nothing more.
enum ConnectionBuffer {
    /// Room for a response head beside a request head at the limit.
    static let responseHeadRoom = 16 * 1024
    /// What the server takes for each field, query argument and cookie of a request: an entry of
    /// seven words, aligned to 16 bytes.
    static let entryBytes = 64
    /// The status line, the empty line and the fields the server or the gateway adds to a head
    /// (`Date`, `Connection`, `Content-Length` or `Transfer-Encoding`, a kept answer's `Age`),
    /// counted generously.
    static let addedBytes = 256

    /// The size of each connection's buffer for a gateway accepting request heads of up to
    /// `maximumHeaderBytes`.
    static func size(maximumHeaderBytes: Int) -> Int {
        maximumHeaderBytes + responseHeadRoom
    }

    /// What `headers`, a request's fields, and its `target` take of the buffer, its head being
    /// `headBytes` bytes.
    static func requestBytes(headBytes: Int, target: String, headers: HTTPHeaders) -> Int {
        var entries = headers.count + 2
        var copied = 0
        for field in headers where field.name.caseInsensitiveEquals("Cookie") {
            copied += field.value.utf8.count + 1
            entries += 1
            for byte in field.value.utf8 where byte == UInt8(ascii: ";") { entries += 1 }
        }
        for byte in target.utf8 where byte == UInt8(ascii: "&") || byte == UInt8(ascii: "?") { entries += 1 }
        return headBytes + copied + entries * entryBytes
    }

    /// What a response head with `headers` takes of the buffer: its field lines, and ``addedBytes``.
    static func responseBytes(_ headers: HTTPHeaders) -> Int {
        addedBytes + fieldLineBytes(headers)
    }

    /// The bytes of `headers` as field lines in a head: `name: value` and a line end for each.
    static func fieldLineBytes(_ headers: HTTPHeaders) -> Int {
        var count = 0
        for field in headers {
            count += field.name.utf8.count + 2 + field.value.utf8.count + 2
        }
        return count
    }
}
