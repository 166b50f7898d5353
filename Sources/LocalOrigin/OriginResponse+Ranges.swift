import Foundation
import HTTPCaching
import HTTPCore

extension OriginResponse {
    /// The answer of an origin that supports range requests (RFC 9110 §14) for `content` with
    /// `headers` (which should carry a validator): 200 with the whole content and
    /// `Accept-Ranges: bytes`; 206 with `Content-Range` for one satisfiable range, or
    /// `multipart/byteranges` for several; 416 with `Content-Range: bytes */LENGTH` when none is
    /// satisfiable. `If-Range` is honoured as ``RangeRequest/answer(request:stored:length:)`` does.
    ///
    /// ```swift
    /// let server = OriginServer { request in
    ///     .ranged(video, headers: ["ETag": "\"v1\"", "Content-Type": "video/webm"], request: request)
    /// }
    /// ```
    public static func ranged(_ content: Data, headers: HTTPHeaders, request: OriginRequest) -> OriginResponse {
        var fields = headers
        fields["Accept-Ranges"] = "bytes"
        if !fields.contains("Date") { fields["Date"] = HTTPDate.format(request.receivedAt) }
        let asked = HTTPRequest(method: request.method, url: URL(string: "http://origin/")!, headers: request.headers)
        let described = StoredResponse(status: 200, headers: fields, requestTime: request.receivedAt,
                                       responseTime: request.receivedAt, varyKey: "")
        let length = Int64(content.count)
        switch RangeRequest.answer(request: asked, stored: described, length: length) {
        case .whole:
            return OriginResponse(status: 200, headers: fields, body: .bytes(content))
        case .unsatisfiable:
            fields.remove("Content-Type")
            fields["Content-Range"] = ContentRange(range: nil, completeLength: length).description
            return OriginResponse(status: 416, headers: fields)
        case .partial(let ranges):
            func bytes(_ range: ByteRange) -> Data {
                content.subdata(in: content.startIndex + Int(range.first)..<content.startIndex + Int(range.end))
            }
            if ranges.count == 1 {
                fields["Content-Range"] = ContentRange(range: ranges[0], completeLength: length).description
                return OriginResponse(status: 206, headers: fields, body: .bytes(bytes(ranges[0])))
            }
            let multipart = MultipartByteRanges(
                ranges: ranges, completeLength: length, contentType: fields["Content-Type"])
            var body = Data()
            for (index, range) in ranges.enumerated() {
                body.append(multipart.partHead(index))
                body.append(bytes(range))
            }
            body.append(multipart.closing)
            fields["Content-Type"] = multipart.contentTypeValue
            return OriginResponse(status: 206, headers: fields, body: .bytes(body))
        }
    }
}
