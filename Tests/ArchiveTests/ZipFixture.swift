import Archive
import Foundation
import Testing
import WebCacheTestSupport

/// WACZ (zip) files for tests, written by Python's zipfile and then damaged as a bad copy might.
enum ZipFixture {
    /// The URL of response record `number` of ``warc(records:)``.
    static func url(_ number: Int) -> String {
        "https://wacz.test/\(number)"
    }

    /// A WARC file of `count` cacheable responses (``url(_:)``), each of 200 letters drawn at random,
    /// so that deflate keeps them long. The same bytes every time (record IDs and dates too), so that
    /// where a damage lands, and what inflating makes of it, does not change from run to run.
    static func warc(records count: Int) -> Data {
        var generator = SeededGenerator(seed: 7)
        var file = Data()
        for number in 0..<count {
            let body = Data((0..<200).map { _ in UInt8.random(in: 97...122, using: &generator) })
            let http = Data(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: max-age=3600\r\n"
                + "Content-Length: \(body.count)\r\n\r\n").utf8) + body
            let idBytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let id = idBytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            let date = Date(timeIntervalSince1970: 1_780_000_000 + Double(number))
            let head = "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:\(id)>\r\n"
                + "WARC-Date: \(WARCDate.format(date))\r\nWARC-Target-URI: \(url(number))\r\n"
                + "Content-Type: application/http; msgtype=response\r\nContent-Length: \(http.count)\r\n\r\n"
            file += Data(head.utf8) + http + Data("\r\n\r\n".utf8)
        }
        return file
    }

    /// Writes a zip file at `path` holding `warc` as `archive/data.warc` and a `datapackage.json`,
    /// both stored or both deflated; returns its bytes.
    @discardableResult
    static func write(_ warc: Data, deflated: Bool, to path: String, in folder: TemporaryFolder) async throws -> Data {
        let script = """
            import zipfile, sys
            method = zipfile.ZIP_DEFLATED if sys.argv[3] == '1' else zipfile.ZIP_STORED
            with zipfile.ZipFile(sys.argv[1], 'w', method) as z:
                z.write(sys.argv[2], 'archive/data.warc')
                z.writestr('datapackage.json', '{}')
            """
        let source = try folder.write(warc, to: "source-\(UUID()).warc")
        let python = try await ExternalTools.run("/usr/bin/python3", ["-c", script, path, source, deflated ? "1" : "0"])
        try #require(python.exitCode == 0, "\(python.error)")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Writes a zip file at `path` whose deflated `archive/data.warc` (`warc`) has 16 bytes overwritten
    /// in the second half of its deflated data, where inflating then fails.
    static func writeDamagedDeflate(_ warc: Data, to path: String, in folder: TemporaryFolder) async throws {
        try await write(warc, deflated: true, to: path, in: folder)
        // The first place in the second half where the damage makes zlib fail, found by zlib itself.
        let script = """
            import sys, struct, zlib
            b = bytearray(open(sys.argv[1], 'rb').read())
            size = struct.unpack_from('<I', b, 18)[0]
            start = 30 + struct.unpack_from('<H', b, 26)[0] + struct.unpack_from('<H', b, 28)[0]
            for mid in range(size // 2, size - 16):
                c = bytearray(b)
                c[start + mid:start + mid + 16] = b'\\xff' * 16
                try:
                    zlib.decompressobj(-15).decompress(bytes(c[start:start + size]))
                except zlib.error:
                    open(sys.argv[1], 'wb').write(c)
                    sys.exit(0)
            sys.exit('no damage makes inflating fail')
            """
        let python = try await ExternalTools.run("/usr/bin/python3", ["-c", script, path])
        try #require(python.exitCode == 0, "\(python.error)")
    }

    /// The offset of the central directory of the zip file `bytes`, from its end record.
    static func directoryOffset(in bytes: Data) throws -> Int {
        let end = try #require(bytes.lastRange(of: Data([0x50, 0x4B, 0x05, 0x06])))
        return Int(littleEndian(UInt32.self, at: end.lowerBound + 16, in: bytes))
    }

    /// The little-endian integer at `offset` of `bytes`.
    static func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int, in bytes: Data) -> T {
        (0..<MemoryLayout<T>.size).reduce(0) { $0 | T(bytes[bytes.startIndex + offset + $1]) << (8 * $1) }
    }

    /// Writes `value` little-endian at `offset` of `bytes`.
    static func set<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout Data) {
        for byte in 0..<MemoryLayout<T>.size {
            bytes[bytes.startIndex + offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte))
        }
    }
}
