import CZlib
import Foundation
import Testing

@testable import WebCache

/// The decoder for stored gzip and deflate content: known bytes, the three forms of deflate that
/// are met, bounded pieces, and content that is cut short or not of its coding.
struct ContentDecoderTests {
    static let gzipText = String(repeating: "hello gzip ", count: 100)
    /// ``gzipText``, gzip-coded.
    static let gzipBytes = Data(base64Encoded: "H4sIAIylDGsC/8tIzcnJV0ivyixQyBhljjJHmaNMcpkATFbXD0wEAAA=")!
    static let deflateText = String(repeating: "hello deflate ", count: 50)
    /// ``deflateText`` in the zlib format (`deflate` as RFC 9110 names it), made with Python's zlib.
    static let zlibBytes = Data(base64Encoded: "eJzLSM3JyVdISU3LSSxJVcgY5Y3yhgwPAJ/pAhI=")!
    /// ``deflateText`` as raw deflate, which some servers send as `deflate`.
    static let rawDeflateBytes = Data(base64Encoded: "y0jNyclXSElNy0ksSVXIGOWN8oYMDwA=")!

    @Test(arguments: [
        ("gzip", gzipBytes, gzipText), ("X-GZIP", gzipBytes, gzipText), ("deflate", zlibBytes, deflateText),
        ("deflate", rawDeflateBytes, deflateText),
    ])
    func decodesKnownContentWholeOrByteByByte(coding: String, coded: Data, text: String) throws {
        for pieceSize in [coded.count, 1] {
            let decoder = try #require(ContentDecoder(coding: coding))
            var decoded = Data()
            for start in stride(from: 0, to: coded.count, by: pieceSize) {
                decoder.feed(coded.subdata(in: start..<min(start + pieceSize, coded.count)))
                while !decoder.needsInput, !decoder.hasEnded {
                    decoded.append(try decoder.read(atMost: 7))
                }
            }
            try decoder.finish()
            #expect(String(decoding: decoded, as: UTF8.self) == text, "pieces of \(pieceSize) bytes")
        }
    }

    @Test func handsOutAHighlyCompressedBodyInBoundedPieces() throws {
        // 8 MiB of zeros compress to about 8 KB.
        let plain = [UInt8](repeating: 0, count: 8 * 1024 * 1024)
        var codedSize = compressBound(uLong(plain.count))
        var coded = [UInt8](repeating: 0, count: Int(codedSize))
        #expect(compress2(&coded, &codedSize, plain, uLong(plain.count), 9) == Z_OK)
        let decoder = try #require(ContentDecoder(coding: "deflate"))
        decoder.feed(Data(coded[0..<Int(codedSize)]))
        var total = 0
        var largest = 0
        while !decoder.hasEnded {
            let piece = try decoder.read(atMost: 65_536)
            largest = max(largest, piece.count)
            total += piece.count
            #expect(piece.allSatisfy { $0 == 0 })
        }
        try decoder.finish()
        #expect(codedSize < 16_384)
        #expect(total == plain.count)
        #expect(largest == 65_536)
    }

    @Test func contentCutShortFailsAtTheEnd() throws {
        let decoder = try #require(ContentDecoder(coding: "gzip"))
        decoder.feed(Self.gzipBytes.prefix(Self.gzipBytes.count - 6))
        while !decoder.needsInput { _ = try decoder.read(atMost: 4_096) }
        #expect(throws: ContentDecoder.Failure(reason: "ends before its gzip content does")) { try decoder.finish() }
    }

    @Test(arguments: ["gzip", "deflate"])
    func bytesNotOfTheCodingFail(coding: String) throws {
        let decoder = try #require(ContentDecoder(coding: coding))
        decoder.feed(Data("<html>plain text, not coded</html>".utf8))
        let failure = #expect(throws: ContentDecoder.Failure.self) {
            while !decoder.needsInput { _ = try decoder.read(atMost: 4_096) }
            try decoder.finish()
        }
        #expect(failure?.reason.contains(coding) == true)
    }

    @Test(arguments: ["br", "zstd", "gzip, br", "identity", ""])
    func readsOnlyTheCodingsZlibReads(coding: String) {
        #expect(ContentDecoder(coding: coding) == nil)
    }
}
