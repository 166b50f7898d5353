import FoundationEssentials
import HTTPCore

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
        guard let end = data.firstRange(of: Data([13, 10, 13, 10])) ?? data.firstRange(of: Data([10, 10])) else {
            return nil
        }
        let (startLine, fields) = try lines(data[data.startIndex..<end.lowerBound])
        guard startLine.split(separator: " ").count >= 2 else {
            throw ArchiveError(reason: "The HTTP message has no valid start line.")
        }
        return (HTTPMessageHead(startLine: startLine, headers: HTTPHeaders(fields)), end.upperBound)
    }

    /// The first line and the fields of a head's bytes (without the empty line that ends it): lines
    /// end in CR LF or LF, and a line that starts with a space or tab continues the field before it.
    ///
    /// - Throws: ``ArchiveError`` when a field line has no colon.
    static func lines(_ bytes: Data) throws -> (first: String, fields: [HTTPField]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        var fields: [HTTPField] = []
        for line in lines.dropFirst() where !line.isEmpty {
            if line.first == " " || line.first == "\t", !fields.isEmpty {
                fields[fields.count - 1].value += " " + line.trimmingHTTPWhitespace()
                continue
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw ArchiveError(reason: "The header line '\(line.prefix(80))' has no colon.")
            }
            fields.append(
                HTTPField(
                    name: String(line[..<colon]).trimmingHTTPWhitespace(),
                    value: String(line[line.index(after: colon)...]).trimmingHTTPWhitespace()))
        }
        return (lines.first ?? "", fields)
    }
}
