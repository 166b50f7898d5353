import FoundationEssentials

/// Reads the bytes `range` of a stored body, from only the chunks that hold them, each checked
/// against its CRC-32 (``ChunkChecksum``) before any of its bytes are returned.
///
/// The first call reads the body's record and its chunk layout (sequence numbers and lengths, from
/// SQLite's record headers, without the bytes); each call reads one chunk. A body stored before
/// schema version 4 has no chunk checksums, only its SHA-256: when the first chunk read has none,
/// the body is read from its first chunk to its last instead, the bytes outside `range` dropped,
/// so that damage is still found, by the call that would have returned `nil`, as
/// ``BodyChunkReader`` does. (Whether chunks carry a checksum is not asked of the layout: the
/// checksum is stored after the bytes, so reading it means reading every chunk.)
///
/// ```swift
/// var reader = try store.bodyRange(bodyID: id, range: 1_000...1_999)
/// while let piece = try reader.next() { send(piece) }
/// ```
public struct BodyRangeReader: Sendable {
    private let store: CacheStore
    private let bodyID: Int64
    private let range: ClosedRange<Int64>
    /// The offset of each chunk's first byte, and the end, once the layout is read.
    private var offsets: [Int64]?
    /// The next position to return.
    private var position: Int64
    /// For a body without chunk checksums: the whole body read in order, and where its next chunk starts.
    private var sequential: BodyChunkReader?
    private var sequentialOffset: Int64 = 0

    init(store: CacheStore, bodyID: Int64, range: ClosedRange<Int64>) {
        self.store = store
        self.bodyID = bodyID
        self.range = range
        self.position = range.lowerBound
    }

    /// The next piece of the range (at most one chunk's worth), or `nil` once it has all been returned.
    ///
    /// - Throws: ``CacheStore/Error``: ``CacheStore/Error/Code/bodyMissing`` when the body is gone,
    ///   ``CacheStore/Error/Code/damagedBody`` in place of a damaged chunk, or when the body is
    ///   shorter than the range.
    public mutating func next() throws -> Data? {
        if offsets == nil {
            let layout = try store.chunkLayout(bodyID: bodyID)
            guard let size = layout.last, range.upperBound < size else {
                throw store.damagedBodyError(bodyID: bodyID)
            }
            offsets = layout
        }
        return sequential != nil ? try nextSequential() : try nextChecksummed()
    }

    private mutating func nextChecksummed() throws -> Data? {
        guard position <= range.upperBound, let offsets else { return nil }
        // The chunk holding `position`: the last whose start is at or before it.
        var low = 0
        var high = offsets.count - 2
        while low < high {
            let middle = (low + high + 1) / 2
            if offsets[middle] <= position { low = middle } else { high = middle - 1 }
        }
        let seq = Int64(low)
        let start = offsets[low]
        let chunk = try store.chunk(bodyID: bodyID, seq: seq)
        guard let checksum = chunk.checksum else {
            // A body without chunk checksums: read whole, in order, and checked against its SHA-256.
            sequential = store.bodyChunks(bodyID: bodyID)
            return try nextSequential()
        }
        guard Int64(chunk.data.count) == offsets[low + 1] - start,
            ChunkChecksum(of: chunk.data).value(bodyID: bodyID, seq: seq) == checksum
        else { throw store.damagedBodyError(bodyID: bodyID) }
        let end = min(range.upperBound + 1, offsets[low + 1])
        let piece = chunk.data.subdata(
            in: chunk.data.startIndex + Int(position - start)..<chunk.data.startIndex + Int(end - start))
        position = end
        return piece
    }

    private mutating func nextSequential() throws -> Data? {
        while var reader = sequential {
            let chunk = try reader.next()
            sequential = reader
            guard let chunk else {
                sequential = nil
                return nil
            }
            let start = sequentialOffset
            sequentialOffset += Int64(chunk.count)
            let from = max(start, position)
            let to = min(sequentialOffset, range.upperBound + 1)
            if from < to {
                position = to
                return chunk.subdata(in: chunk.startIndex + Int(from - start)..<chunk.startIndex + Int(to - start))
            }
        }
        return nil
    }
}

extension CacheStore {
    /// A reader of the bytes `range` of body `bodyID`, reading only the chunks that hold them.
    public nonisolated func bodyRange(bodyID: Int64, range: ClosedRange<Int64>) -> BodyRangeReader {
        BodyRangeReader(store: self, bodyID: bodyID, range: range)
    }

    /// The offsets at which the chunks of body `bodyID` start, followed by the body's size, read
    /// from one snapshot without the chunks' bytes (`length()` of a blob reads its record header).
    ///
    /// - Throws: ``Error/Code/bodyMissing`` when no complete body has that id;
    ///   ``Error/Code/damagedBody`` when the chunks are not the body recorded (a gap, another count,
    ///   another size).
    nonisolated func chunkLayout(bodyID: Int64) throws -> [Int64] {
        let layout = try read("read body \(bodyID)") { connection -> (offsets: [Int64], sound: Bool)? in
            var record: (size: Int64, count: Int64)?
            try connection.forEachRow(
                "SELECT size, chunk_count FROM body WHERE id = ? AND hash IS NOT NULL", [.integer(bodyID)]
            ) { row in
                record = (row.int64(0), row.int64(1))
            }
            guard let record else { return nil }
            var offsets: [Int64] = [0]
            var inOrder = true
            try connection.forEachRow(
                "SELECT seq, length(data) FROM body_chunk WHERE body_id = ? ORDER BY seq", [.integer(bodyID)]
            ) { row in
                if row.int64(0) != Int64(offsets.count - 1) { inOrder = false }
                offsets.append(offsets[offsets.count - 1] + row.int64(1))
            }
            return (offsets, inOrder && Int64(offsets.count - 1) == record.count && offsets.last == record.size)
        }
        guard let layout else {
            throw Error(code: .bodyMissing, message: "Body \(bodyID) is not in the cache store '\(path)'.")
        }
        guard layout.sound else { throw damagedBodyError(bodyID: bodyID) }
        return layout.offsets
    }
}
