import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A fixed instant, so that tests do not depend on the clock.
let referenceDate = Date(timeIntervalSince1970: 1_800_000_000)

/// An entry for `url` with typical headers, fresh for `freshFor` seconds after ``referenceDate``.
func makeEntry(
    _ url: String,
    partition: String = "guest",
    method: HTTPMethod = .get,
    varyKey: String = "",
    freshFor: TimeInterval = 600,
    staleFor: TimeInterval? = nil,
    headers: HTTPHeaders = ["Content-Type": "text/plain", "ETag": "\"v1\""]
) -> CacheEntry {
    CacheEntry(
        partition: partition,
        method: method,
        url: url,
        varyKey: varyKey,
        status: 200,
        headers: headers,
        requestTime: referenceDate,
        responseTime: referenceDate,
        freshUntil: referenceDate.addingTimeInterval(freshFor),
        staleUntil: staleFor.map { referenceDate.addingTimeInterval(freshFor + $0) }
    )
}

/// Bytes that differ for every seed.
func makeBody(size: Int, seed: UInt8) -> Data {
    Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ ($0 >> 8)) })
}

/// A configuration with a controllable clock.
func configuration(now: Date = referenceDate, byteLimit: Int64? = nil) -> CacheStore.Configuration {
    var configuration = CacheStore.Configuration()
    configuration.clock = { now }
    configuration.byteLimit = byteLimit
    return configuration
}

/// Totals computed by a full scan, to compare with the running totals.
func scannedTotals(_ store: CacheStore) throws -> StoreTotals {
    try store.read("scan") { connection in
        var totals = StoreTotals(entryCount: 0, entryBytes: 0, bodyCount: 0, bodyBytes: 0)
        try connection.forEachRow(
            """
            SELECT (SELECT count(*) FROM entry), (SELECT coalesce(sum(body_size), 0) FROM entry), \
            (SELECT count(*) FROM body), (SELECT coalesce(sum(size), 0) FROM body)
            """
        ) { row in
            totals = StoreTotals(
                entryCount: row.int64(0), entryBytes: row.int64(1), bodyCount: row.int64(2), bodyBytes: row.int64(3)
            )
        }
        return totals
    }
}

/// The number of rows of `table`.
func rowCount(_ store: CacheStore, _ table: String) throws -> Int64 {
    try store.read("count") { connection in try connection.int64("SELECT count(*) FROM \(table)") ?? -1 }
}
