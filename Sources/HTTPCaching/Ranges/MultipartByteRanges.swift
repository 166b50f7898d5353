import FoundationEssentials

/// The framing of a `multipart/byteranges` body (RFC 9110 §14.6): before each part a boundary line,
/// the part's `Content-Type` (the representation's) and `Content-Range`, after the last one the
/// closing boundary. The bytes of each part come from elsewhere; this type only frames them, so that
/// the exact `Content-Length` is known before the first byte is sent.
///
/// ```swift
/// let body = MultipartByteRanges(ranges: ranges, completeLength: 10_000, contentType: "video/webm")
/// headers["Content-Type"] = body.contentTypeValue
/// headers["Content-Length"] = String(body.contentLength)
/// for (index, range) in body.ranges.enumerated() { send(body.partHead(index)); send(bytes(range)) }
/// send(body.closing)
/// ```
public struct MultipartByteRanges: Sendable, Hashable {
    /// The parts, in the order sent.
    public let ranges: [ByteRange]
    /// The length of the complete representation, for each part's `Content-Range`.
    public let completeLength: Int64
    /// The representation's `Content-Type`, repeated in each part; `nil` leaves it out.
    public let contentType: String?
    /// The boundary: at most 70 characters that never occur in the content by chance.
    public let boundary: String

    /// Frames `ranges` of a representation of `completeLength` bytes, with a random boundary
    /// unless one is given.
    public init(ranges: [ByteRange], completeLength: Int64, contentType: String?, boundary: String? = nil) {
        self.ranges = ranges
        self.completeLength = completeLength
        self.contentType = contentType
        self.boundary = boundary ?? Self.makeBoundary()
    }

    /// `multipart/byteranges; boundary=…`, the response's `Content-Type`.
    public var contentTypeValue: String { "multipart/byteranges; boundary=\(boundary)" }

    /// The bytes sent before part `index`: the boundary line (after a line break, except before the
    /// first part) and the part's fields.
    public func partHead(_ index: Int) -> Data {
        var text = (index == 0 ? "" : "\r\n") + "--\(boundary)\r\n"
        if let contentType { text += "Content-Type: \(contentType)\r\n" }
        text += "Content-Range: \(ContentRange(range: ranges[index], completeLength: completeLength))\r\n\r\n"
        return Data(text.utf8)
    }

    /// The closing boundary sent after the last part.
    public var closing: Data { Data("\r\n--\(boundary)--\r\n".utf8) }

    /// The length of the whole body: every part's head and bytes, and the closing boundary.
    public var contentLength: Int64 {
        ranges.indices.reduce(Int64(closing.count)) { total, index in
            total + Int64(partHead(index).count) + ranges[index].length
        }
    }

    /// A boundary of 32 random hexadecimal digits after a fixed prefix.
    static func makeBoundary() -> String {
        "webcache-" + (0..<4).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined()
    }
}
