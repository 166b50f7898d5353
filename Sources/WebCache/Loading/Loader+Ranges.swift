import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore
import Synchronization

extension Loader {
    // MARK: - Ranges of complete entries (RFC 9110 §14)

    /// The answer to a GET with `Range` from the complete stored `entry`, served with the fields of its
    /// `head` at `age` (made only for a request with `Range`): 206 with one part or
    /// `multipart/byteranges`, or 416; `nil` when the whole response is to be
    /// served (no usable `Range`, an `If-Range` that does not hold; see
    /// ``RangeRequest/answer(request:stored:length:)``).
    ///
    /// Only the chunks that hold the requested bytes are read. A body of at most one chunk's worth
    /// of bytes is read at once, so that damage is found before the response is returned, as for a
    /// whole body.
    ///
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/tooLarge`` when the bytes to send
    ///   are over `limit`, or ``WebCacheError/Code/damaged`` when a body read at once is damaged.
    nonisolated(nonsending) func servedRanges(
        of entry: CacheEntry, request: HTTPRequest, head: ServedHeadCache.Head, source: ResponseSource,
        age: TimeInterval, limit: Int64?, discardsDamage: Bool
    ) async throws -> WebResponse? {
        guard request.method == .get, request.headers.contains("Range"), let bodyID = entry.bodyID else { return nil }
        let headers = head.headers(age: age)
        let served = StoredResponse(status: entry.status, headers: headers, requestTime: entry.requestTime,
                                    responseTime: entry.responseTime, varyKey: entry.varyKey)
        let length = entry.bodySize
        switch RangeRequest.answer(request: request, stored: served, length: length) {
        case .whole:
            return nil
        case .unsatisfiable:
            var fields = headers
            Self.removeContentFields(from: &fields)
            fields.append(name: "Content-Range", value: ContentRange(range: nil, completeLength: length).description)
            fields.append(name: "Content-Length", value: "0")
            return WebResponse(url: request.url, status: 416, headers: fields, source: source, age: age,
                               body: WebResponse.Body(data: Data()))
        case .partial(let ranges):
            var fields = headers
            let pieces = Self.rangePieces(ranges, completeLength: length, headers: &fields) { index in
                [.span(bodyID: bodyID, range: ranges[index].first...ranges[index].last)]
            }
            let body = try await piecesBody(StoredPieces(store: store, pieces: pieces), entry: entry,
                                            url: request.url, limit: limit, discardsDamage: discardsDamage)
            return WebResponse(url: request.url, status: 206, headers: fields, source: source, age: age, body: body)
        }
    }

    /// The pieces of a 206 carrying `ranges`, the bytes of range number `n` being `bytesOf(n)`, and
    /// its fields set in `headers`: one part with `Content-Range`, or several framed as
    /// `multipart/byteranges` (RFC 9110 §14.6), with the `Content-Length` of what is sent.
    static func rangePieces(
        _ ranges: [ByteRange], completeLength: Int64, headers: inout HTTPHeaders,
        bytesOf: (Int) -> [StoredPieces.Piece]
    ) -> [StoredPieces.Piece] {
        let contentType = headers["Content-Type"]
        removeContentFields(from: &headers)
        var pieces: [StoredPieces.Piece]
        if ranges.count == 1, let range = ranges.first {
            if let contentType { headers.append(name: "Content-Type", value: contentType) }
            headers.append(name: "Content-Range",
                           value: ContentRange(range: range, completeLength: completeLength).description)
            pieces = bytesOf(0)
        } else {
            let multipart = MultipartByteRanges(ranges: ranges, completeLength: completeLength,
                                                contentType: contentType)
            headers.append(name: "Content-Type", value: multipart.contentTypeValue)
            pieces = []
            for index in ranges.indices {
                pieces.append(.bytes(multipart.partHead(index)))
                pieces.append(contentsOf: bytesOf(index))
            }
            pieces.append(.bytes(multipart.closing))
        }
        headers.append(name: "Content-Length", value: String(pieces.reduce(0) { $0 + $1.length }))
        return pieces
    }

    /// Removes the fields that describe the content as a whole, which a 206 or 416 states anew.
    private static func removeContentFields(from headers: inout HTTPHeaders) {
        for name in ["Content-Length", "Content-Range", "Content-Type"] { headers.remove(name) }
    }

    /// A body of `pieces`: read at once when it is at most one chunk's worth (damage is then found
    /// before the response is returned), else piece by piece as the caller pulls it.
    ///
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/tooLarge`` past `limit`, or
    ///   ``WebCacheError/Code/damaged`` when a body read at once is damaged.
    func piecesBody(
        _ pieces: StoredPieces, entry: CacheEntry, url: URL, limit: Int64?, discardsDamage: Bool
    ) async throws -> WebResponse.Body {
        let length = pieces.length
        if let limit, length > limit {
            throw WebCacheError(
                .tooLarge,
                "The stored bytes asked of \(url.redactedForMessages) are \(length) bytes, more than the limit of "
                    + "\(limit) bytes.")
        }
        if length <= Int64(CacheStore.chunkSize) {
            var reader = pieces
            let data = try await readStored(entry, url: url, discardsDamage: discardsDamage, streamed: false) {
                try reader.collect()
            }
            return WebResponse.Body(data: data)
        }
        let reader = Mutex(pieces)
        return WebResponse.Body(pull: { [self] in
            try await readStored(entry, url: url, discardsDamage: discardsDamage, streamed: true) {
                try reader.withLock { reader in try reader.next() }
            }
        })
    }
}
