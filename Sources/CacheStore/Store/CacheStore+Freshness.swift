import Foundation
import HTTPCore

extension CacheStore {
    /// A stored response that answers a plain `GET` of its URL without contacting the origin: the
    /// only complete variant of the URL, fresh, selected by no request field (no `Vary`), stored as
    /// the origin coded it, with a success status, and a body of at most one chunk found intact.
    public struct FreshEntry: Sendable, Hashable {
        /// The entry's row id (for ``recordHit(entryID:at:)``).
        public var id: Int64
        /// The stored status, from 200 to 299.
        public var status: Int
        /// The stored `Content-Type`, if any.
        public var contentType: String?
        /// The body's size in bytes.
        public var bodySize: Int64
    }

    /// For each of `urls`, the ``FreshEntry`` that answers a `GET` of it in `partition` at `date`
    /// without a request, or `nil` when none does (nothing stored, stale, several variants, a `Vary`
    /// field, a decoded copy, a partial or an error or redirect response, a body larger than one
    /// chunk or damaged: the caller then loads the URL the full way, which decides those cases by
    /// every rule of RFC 9111, and reads and checks a larger body as it always does).
    ///
    /// One read transaction for them all, and per URL the hit path's own read
    /// (``variants(partition:method:url:withBodyIfFreshAt:upTo:)``): the freshness comes from the
    /// `fresh_until` column (RFC 9111 §4.2: `response_time` plus the freshness lifetime minus the
    /// corrected initial age; 0 lifetime for `no-cache`), and the body is checked as every read
    /// checks it (``BodyCheck``), so that a damaged copy is not answered but fetched again. It records
    /// no hit: see ``recordHit(entryID:at:)``.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func freshEntries(
        partition: String = "guest", urls: [String], at date: Date = Date()
    ) throws -> [FreshEntry?] {
        guard !urls.isEmpty else { return [] }
        let columns = columns
        return try read("look up the freshness of \(urls.count) URLs") { connection in
            try connection.readTransaction {
                try urls.map { url in
                    let (entries, body) = try Self.variants(
                        partition: partition, method: .get, url: url, withBodyIfFreshAt: date,
                        upTo: Int64(Self.chunkSize), columns: columns, connection)
                    guard body != nil, let entry = entries.first, let id = entry.id, entry.varyKey.isEmpty,
                        entry.decodedFrom == nil, !entry.headers.contains("Vary"),
                        (200...299).contains(entry.status), entry.status != 206
                    else { return nil }
                    return FreshEntry(id: id, status: entry.status, contentType: entry.headers["Content-Type"],
                                      bodySize: entry.bodySize)
                }
            }
        }
    }
}
