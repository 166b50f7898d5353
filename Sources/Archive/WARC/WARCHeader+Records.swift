import FoundationEssentials
import HTTPCore

extension WARCHeader {
    /// A new `WARC-Record-ID`: a UUID URN in angle brackets.
    public static func makeRecordID() -> String {
        "<urn:uuid:\(UUID().uuidString.lowercased())>"
    }

    /// A `warcinfo` record's header for a block of `length` bytes of `application/warc-fields`.
    public static func warcinfo(recordID: String, date: Date, filename: String, length: Int) -> WARCHeader {
        WARCHeader(fields: [
            "WARC-Type": "warcinfo",
            "WARC-Record-ID": recordID,
            "WARC-Date": WARCDate.format(date),
            "WARC-Filename": filename,
            "Content-Type": "application/warc-fields",
            "Content-Length": String(length),
        ])
    }

    /// The header of a `response`, `request` or `revisit` record of an HTTP exchange.
    ///
    /// - Parameters:
    ///   - type: `response`, `request` or `revisit`.
    ///   - blockLength: The block's length: the HTTP head, and the content except for a revisit.
    ///   - blockDigest: The SHA-256 of the whole block.
    ///   - payloadDigest: The SHA-256 of the content (for a revisit, of the content it refers to).
    ///   - concurrentTo: The record this one belongs with (the response, for a request).
    ///   - refersTo: For a revisit: the target URI and date of the response that holds the content.
    public static func http(
        type: String, recordID: String, targetURI: String, date: Date, blockLength: Int64, blockDigest: Data,
        payloadDigest: Data?, concurrentTo: String? = nil, refersTo: (uri: String, date: Date)? = nil
    ) -> WARCHeader {
        var fields: HTTPHeaders = [
            "WARC-Type": type,
            "WARC-Record-ID": recordID,
            "WARC-Date": WARCDate.format(date),
            "WARC-Target-URI": targetURI,
        ]
        if let concurrentTo { fields.append(name: "WARC-Concurrent-To", value: concurrentTo) }
        if let refersTo {
            fields.append(name: "WARC-Profile", value: "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
            fields.append(name: "WARC-Refers-To-Target-URI", value: refersTo.uri)
            fields.append(name: "WARC-Refers-To-Date", value: WARCDate.format(refersTo.date))
        }
        if let payloadDigest { fields.append(name: "WARC-Payload-Digest", value: WARCDigest.sha256Label(payloadDigest)) }
        fields.append(name: "WARC-Block-Digest", value: WARCDigest.sha256Label(blockDigest))
        let messageType = type == "request" ? "request" : "response"
        fields.append(name: "Content-Type", value: "application/http; msgtype=\(messageType)")
        fields.append(name: "Content-Length", value: String(blockLength))
        return WARCHeader(fields: fields)
    }
}
