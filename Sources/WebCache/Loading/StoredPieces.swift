import CacheStore
import FoundationEssentials

/// A response body made of pieces read from the store in order: bytes held in memory (the framing
/// of a multipart body) and spans of stored bodies (a range of a complete entry, or the parts of a
/// partial one), each span read from only the chunks that hold it (``CacheStore/BodyRangeReader``).
struct StoredPieces: Sendable {
    /// One piece of the body.
    enum Piece: Sendable, Hashable {
        /// Bytes sent as they are.
        case bytes(Data)
        /// The bytes `range` of stored body `bodyID`.
        case span(bodyID: Int64, range: ClosedRange<Int64>)

        var length: Int64 {
            switch self {
            case .bytes(let data): Int64(data.count)
            case .span(_, let range): range.upperBound - range.lowerBound + 1
            }
        }
    }

    private let store: CacheStore
    private let pieces: [Piece]
    private var index = 0
    private var reader: BodyRangeReader?

    init(store: CacheStore, pieces: [Piece]) {
        self.store = store
        self.pieces = pieces
    }

    /// The number of bytes the pieces make.
    var length: Int64 { pieces.reduce(0) { $0 + $1.length } }

    /// The next bytes, or `nil` after the last piece.
    ///
    /// - Throws: ``CacheStore/Error`` when a span cannot be read or is damaged.
    mutating func next() throws -> Data? {
        while index < pieces.count {
            switch pieces[index] {
            case .bytes(let data):
                index += 1
                return data
            case .span(let bodyID, let range):
                var current = reader ?? store.bodyRange(bodyID: bodyID, range: range)
                let piece = try current.next()
                reader = current
                if let piece { return piece }
                reader = nil
                index += 1
            }
        }
        return nil
    }

    /// Every remaining byte in memory; for bodies known to be small.
    mutating func collect() throws -> Data {
        var data = Data()
        while let piece = try next() { data.append(piece) }
        return data
    }
}
