import FoundationEssentials
import HTTPCore

/// A stored body served decoded: pulls the coded chunks as it goes and hands out decoded pieces
/// of at most ``pieceSize`` bytes, so memory stays flat however far the coding expands.
actor DecodedBody {
    /// The most decoded bytes one pull hands out.
    static let pieceSize = 256 * 1024

    private var coded: WebResponse.Body.AsyncIterator
    private let decoder: ContentDecoder
    private let coding: String
    private let url: URL
    private let limit: Int64?
    private var delivered: Int64 = 0
    private var first: Data?

    /// Decodes `coded`, the stored body of `url` coded with `decoder`'s coding; fails past `limit`
    /// decoded bytes.
    init(coded: WebResponse.Body, decoder: ContentDecoder, coding: String, url: URL, limit: Int64?) {
        self.coded = coded.makeAsyncIterator()
        self.decoder = decoder
        self.coding = coding
        self.url = url
        self.limit = limit
    }

    /// Decodes the first piece now, so that content that is not of its coding fails before the
    /// response is handed over, where the loader can still fetch it again.
    func start() async throws {
        first = try await decodeNext() ?? Data()
    }

    /// The next decoded piece; `nil` at the end.
    ///
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/damaged`` when the bytes do not
    ///   decode, or ``WebCacheError/Code/tooLarge`` past the limit.
    func next() async throws -> Data? {
        if let piece = first {
            first = nil
            return piece.isEmpty ? nil : piece
        }
        return try await decodeNext()
    }

    private func decodeNext() async throws -> Data? {
        do {
            while !decoder.hasEnded {
                if decoder.needsInput {
                    var iterator = coded
                    let next = try await iterator.next()
                    coded = iterator
                    guard let chunk = next else {
                        try decoder.finish()
                        return nil
                    }
                    decoder.feed(chunk)
                    continue
                }
                let piece = try decoder.read(atMost: Self.pieceSize)
                guard !piece.isEmpty else { continue }
                delivered += Int64(piece.count)
                if let limit, delivered > limit {
                    throw WebCacheError(
                        .tooLarge,
                        "The stored response for \(url.redactedForMessages), decoded from \(coding), has more than "
                            + "the limit of \(limit) bytes.")
                }
                return piece
            }
            return nil
        } catch let failure as ContentDecoder.Failure {
            throw WebCacheError(
                .damaged,
                "The stored copy of \(url.redactedForMessages) is coded with \(coding), and its content "
                    + "\(failure.reason).")
        }
    }
}
