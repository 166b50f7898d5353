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
}
