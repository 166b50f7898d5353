import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CacheStore {
    /// Every stored variant of (`partition`, `method`, `url`), as ``variants(partition:method:url:)``,
    /// and, when there is exactly one, fresh at `now` (its `fresh_until` later) and with a body of at
    /// most `bodyLimit` bytes, that body copied into memory of its own and checked there, in the same
    /// read: a hit's one read for a server that sends the body from its own buffer.
    ///
    /// The copy is allocated with `malloc` and belongs to the caller, who frees it with `free` (or
    /// hands it to a library that does). It is `nil` when another read is needed or the body is not
    /// sound (gone, or damaged: ``copyBody(bodyID:into:)`` then reports which).
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func variants(
        partition: String = "guest", method: HTTPMethod = .get, url: String, copyingBodyIfFreshAt now: Date,
        upTo bodyLimit: Int64
    ) throws -> (entries: [CacheEntry], body: UnsafeMutableRawBufferPointer?) {
        let columns = columns
        let found = try read("look up \(url)") { connection -> (entries: [CacheEntry], body: UInt, size: Int) in
            // The copy's address, kept as a number so that it crosses back out of the reader's closure.
            var copy: (address: UInt, size: Int)?
            // Freed unless returned: also when a later step throws (the read may then be tried again).
            var handedOver = false
            defer { if !handedOver, let copy { free(UnsafeMutableRawPointer(bitPattern: copy.address)) } }
            let read = try Self.variants(
                partition: partition, method: method, url: url, freshAt: now, upTo: bodyLimit, columns: columns,
                connection
            ) { entry, check -> Bool in
                guard let memory = malloc(max(1, Int(entry.bodySize))) else { return false }
                let address = UInt(bitPattern: memory)
                copy = (address, Int(entry.bodySize))
                return try Self.copyChunks(check, to: address, capacity: Int(entry.bodySize),
                                           query: columns.chunksQuery, connection)
            }
            guard read.firstBody == true, read.entries.count == 1, let copy else {
                return (CacheEntry.inStoredOrder(read.entries), 0, 0)
            }
            handedOver = true
            return (read.entries, copy.address, copy.size)
        }
        guard let memory = UnsafeMutableRawPointer(bitPattern: found.body) else { return (found.entries, nil) }
        return (found.entries, UnsafeMutableRawBufferPointer(start: memory, count: found.size))
    }
}
