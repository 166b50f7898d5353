import CZlib
import Foundation

/// The CRC-32 (ISO-HDLC, zlib's `crc32`) that each body chunk is stored with, so that a read can
/// check every chunk as it goes by, at memory speed, before it hands the chunk over.
///
/// It covers the chunk's place as well as its bytes: the CRC-32 of the bytes followed by the body id
/// and the sequence number (8 bytes each, little-endian). So a chunk read under another body
/// or at another position fails too, as do changed bytes. It guards against damage to the file,
/// not against a deliberate change: the body's SHA-256 stays its identity, and
/// ``CacheStore/verify()`` still re-hashes every body.
///
/// The CRC-32 of the bytes is computed apart (``init(of:)``, off the writer's thread for a streamed
/// body) and carried on over the place when the chunk's body id is known (``value(bodyID:seq:)``).
struct ChunkChecksum: Sendable {
    private let bytesCRC: uLong

    /// The CRC-32 of `data`, to be placed with ``value(bodyID:seq:)``.
    init(of data: Data) {
        bytesCRC = Self.crc(data)
    }

    /// The value stored in `body_chunk.checksum` (0 to 2³² − 1) for these bytes as chunk `seq` of
    /// body `bodyID`.
    func value(bodyID: Int64, seq: Int64) -> Int64 {
        let place = [bodyID.littleEndian, seq.littleEndian]
        return place.withUnsafeBytes { bytes in
            Int64(crc32(bytesCRC, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
        }
    }

    private static func crc(_ data: Data) -> uLong {
        data.withUnsafeBytes { buffer -> uLong in
            var crc = crc32(0, nil, 0)
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return crc }
            var offset = 0
            // zlib takes a 32-bit length; chunks are far smaller, but a caller's data need not be.
            while offset < buffer.count {
                let length = min(buffer.count - offset, Int(UInt32.max))
                crc = crc32(crc, base + offset, uInt(length))
                offset += length
            }
            return crc
        }
    }
}
