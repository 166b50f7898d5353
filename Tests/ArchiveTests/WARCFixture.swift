import Archive
import Foundation
import HTTPCore

/// Hand-made WARC records for tests.
enum WARCFixture {
    /// A writer of a compressed WARC file at `path`.
    static func writer(_ path: String) throws -> WARCWriter {
        try WARCWriter(path: path, compressionLevel: 6)
    }

    /// Writes one record of `type` with `block` (and `WARC-Target-URI` `uri`, when given).
    static func write(type: String, uri: String?, block: String, to writer: WARCWriter) throws {
        var fields: HTTPHeaders = ["WARC-Type": type, "WARC-Record-ID": WARCHeader.makeRecordID(),
                                   "WARC-Date": WARCDate.format(Date())]
        if let uri { fields.append(name: "WARC-Target-URI", value: uri) }
        fields.append(name: "Content-Type", value: "application/warc-fields")
        fields.append(name: "Content-Length", value: String(block.utf8.count))
        try writer.writeRecord(WARCHeader(fields: fields), block: Data(block.utf8))
    }

    /// A `response`, `request` or `revisit` record whose block is an HTTP message.
    struct HTTPRecord {
        var type = "response"
        var uri: String
        var date = Date()
        /// The HTTP message: head and content.
        var message: Data
        /// WARC fields added to those every record has (`WARC-Concurrent-To`, `WebCache-Partition`, …).
        var fields: HTTPHeaders = [:]
        var recordID = WARCHeader.makeRecordID()

        /// A record of a response of `status` with `headers` and `body`.
        static func response(
            _ uri: String, status: Int = 200, headers: HTTPHeaders, body: Data, date: Date = Date(),
            fields: HTTPHeaders = [:]
        ) -> HTTPRecord {
            var headers = headers
            headers.append(name: "Content-Length", value: String(body.count))
            return HTTPRecord(
                uri: uri, date: date, message: HTTPMessageHead(status: status, headers: headers).serialized() + body,
                fields: fields)
        }

        /// A request record of a GET of `uri` with `headers`, for the response record `response`.
        static func request(_ uri: String, headers: HTTPHeaders, for response: HTTPRecord) -> HTTPRecord {
            let url = URL(string: uri)
            var head = "GET \(url?.path(percentEncoded: true) ?? "/") HTTP/1.1\r\nHost: \(url?.host() ?? "")\r\n"
            for field in headers { head += "\(field.name): \(field.value)\r\n" }
            return HTTPRecord(
                type: "request", uri: uri, date: response.date, message: Data((head + "\r\n").utf8),
                fields: ["WARC-Concurrent-To": response.recordID])
        }

        /// A revisit record (`identical-payload-digest`) of `uri` whose payload has the digest
        /// `digestLabel`, referring to `refersTo`; its block is the response head alone.
        static func revisit(
            _ uri: String, headers: HTTPHeaders, digestLabel: String, refersTo: String, fields: HTTPHeaders = [:]
        ) -> HTTPRecord {
            var all: HTTPHeaders = [
                "WARC-Profile": "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
                "WARC-Refers-To-Target-URI": refersTo, "WARC-Payload-Digest": digestLabel,
            ]
            for field in fields { all.append(name: field.name, value: field.value) }
            return HTTPRecord(
                type: "revisit", uri: uri, message: HTTPMessageHead(status: 200, headers: headers).serialized(),
                fields: all)
        }
    }

    /// Writes an uncompressed WARC file at `path` holding `records`; returns the place of each
    /// record as import reports it (`PATH@OFFSET`).
    @discardableResult
    static func write(_ records: [HTTPRecord], to path: String) throws -> [String] {
        let writer = try WARCWriter(path: path, compressionLevel: nil)
        var places: [String] = []
        for record in records {
            var header = WARCHeader.http(
                type: record.type, recordID: record.recordID, targetURI: record.uri, date: record.date,
                blockLength: Int64(record.message.count), blockDigest: SHA256.hash(record.message), payloadDigest: nil)
            for field in record.fields { header.fields.append(name: field.name, value: field.value) }
            places.append("\(path)@\(writer.bytesWritten)")
            try writer.writeRecord(header, block: record.message)
        }
        try writer.close()
        return places
    }
}
