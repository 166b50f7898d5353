import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The head of an HTTP/1.x message as a WARC record or HAR entry carries it: the start line and
/// the header fields in order, repeated names kept.
public struct HTTPMessageHead: Sendable, Hashable {
    /// The start line without its line end: `GET /a HTTP/1.1` or `HTTP/1.1 200 OK`.
    public var startLine: String
    /// The header fields as they came.
    public var headers: HTTPHeaders

    /// Creates a head from its start line and fields.
    public init(startLine: String, headers: HTTPHeaders) {
        self.startLine = startLine
        self.headers = headers
    }

    /// A response head: `HTTP/1.1 <status> <reason>`.
    public init(status: Int, reason: String? = nil, headers: HTTPHeaders) {
        self.init(startLine: "HTTP/1.1 \(status) \(reason ?? HTTPStatus.reasonPhrase(status) ?? "")", headers: headers)
    }

    /// The status code of a response head, `nil` for a request or a malformed status line.
    public var status: Int? {
        let parts = startLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].count == 3 else { return nil }
        return Int(parts[1])
    }

    /// The reason phrase of a response head.
    public var reason: String {
        let parts = startLine.split(separator: " ", maxSplits: 2)
        return parts.count == 3 ? String(parts[2]) : ""
    }

    /// The method of a request head.
    public var method: String? {
        startLine.hasPrefix("HTTP/") ? nil : startLine.split(separator: " ").first.map(String.init)
    }

    /// The start line, the fields and the empty line, as on the wire.
    public func serialized() -> Data {
        var text = startLine + "\r\n"
        for field in headers {
            text += "\(field.name): \(field.value)\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// Parses the head at the start of `data`.
    ///
    /// - Returns: The head and the index in `data` where the content starts, or `nil` when `data`
    ///   does not hold the whole head yet.
    /// - Throws: ``ArchiveError`` (without an offset) when the bytes are not an HTTP head.
    public static func parse(_ data: Data) throws -> (head: HTTPMessageHead, contentStart: Data.Index)? {
        guard let end = blankLine(in: data, from: data.startIndex) else { return nil }
        let (startLine, fields) = try lines(data[data.startIndex..<end.lowerBound])
        guard startLine.split(separator: " ").count >= 2 else {
            throw ArchiveError(reason: "The HTTP message has no valid start line.")
        }
        return (HTTPMessageHead(startLine: startLine, headers: HTTPHeaders(fields)), end.upperBound)
    }

    /// The first empty line in `data` from `start` on, which ends a head: `CR LF CR LF` or `LF LF`,
    /// whichever comes first; `nil` when there is none yet.
    public static func blankLine(in data: Data, from start: Data.Index) -> Range<Data.Index>? {
        let found = data.withUnsafeBytes { buffer -> Range<Int>? in
            guard let base = buffer.baseAddress else { return nil }
            let first = max(0, start - data.startIndex)
            var next = first
            while next < buffer.count, let match = memchr(base + next, 10, buffer.count - next) {
                let lineFeed = base.distance(to: UnsafeRawPointer(match))
                if lineFeed + 1 < buffer.count, buffer[lineFeed + 1] == 10 { return lineFeed..<(lineFeed + 2) }
                if lineFeed > first, lineFeed + 2 < buffer.count, buffer[lineFeed - 1] == 13, buffer[lineFeed + 1] == 13,
                    buffer[lineFeed + 2] == 10
                {
                    return (lineFeed - 1)..<(lineFeed + 3)
                }
                next = lineFeed + 1
            }
            return nil
        }
        return found.map { (data.startIndex + $0.lowerBound)..<(data.startIndex + $0.upperBound) }
    }

    /// The first line and the fields of a head's bytes (without the empty line that ends it): lines
    /// end in CR LF, LF or CR, and a line that starts with a space or tab continues the field before it.
    ///
    /// - Throws: ``ArchiveError`` when a field line has no colon.
    static func lines(_ bytes: Data) throws -> (first: String, fields: [HTTPField]) {
        try bytes.withUnsafeBytes { buffer in
            var first: String?
            var fields: [HTTPField] = []
            var start = 0
            while true {
                var end = start
                while end < buffer.count, buffer[end] != 10, buffer[end] != 13 { end += 1 }
                let line = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
                if first == nil {
                    first = String(decoding: line, as: UTF8.self)
                } else if let lineStart = line.first {
                    if lineStart == 0x20 || lineStart == 0x09, !fields.isEmpty {
                        fields[fields.count - 1].value += " " + trimmed(line)
                    } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                        fields.append(HTTPField(
                            name: trimmed(UnsafeRawBufferPointer(rebasing: line[..<colon])),
                            value: trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))))
                    } else {
                        let text = String(decoding: line, as: UTF8.self)
                        throw ArchiveError(reason: "The header line '\(text.prefix(80))' has no colon.")
                    }
                }
                guard end < buffer.count else { break }
                start = end + 1
            }
            return (first ?? "", fields)
        }
    }

    /// `bytes` without the spaces and tabs around them (``withoutHTTPWhitespace(_:)``), as text.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> String {
        withoutHTTPWhitespace(bytes).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
