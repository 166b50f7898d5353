import CSQLite
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Copying stored bodies into buffers the caller owns (what the gateway sends from): the same bytes
/// as ``CacheStore/bodyData(bodyID:)`` for every size and buffer size, and damage refused before the
/// damaged bytes are reported, like the chunk reader refuses it.
@Suite(.timeLimit(.minutes(5)))
struct BodyCopierTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    /// Runs `sql` on a connection of its own, as another program would.
    private func damage(_ sql: String) throws {
        let connection = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        try connection.execute(sql: sql)
    }

    /// Every byte `copier` copies into buffers of `bufferSize`, until it reports the end.
    private func copyAll(_ copier: inout BodyCopier, bufferSize: Int) throws -> Data {
        var copied = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = try copier.copy(into: buffer)
            guard count > 0 else { return copied }
            copied.append(contentsOf: buffer.prefix(count))
        }
    }

    static let chunk = CacheStore.chunkSize

    @Test(arguments: [0, 1, 5_000, chunk, chunk + 1, 3 * chunk + 17])
    func aBodyIsCopiedWholeAndChunkByChunkIntoBuffersOfAnySize(size: Int) async throws {
        let body = makeBody(size: size, seed: 3)
        let bodyID = try #require(try await store.save(makeEntry("https://example.test/\(size)"), body: body).bodyID)

        for bufferSize in [Self.chunk, 1_000, 3 * Self.chunk] {
            var copier = store.bodyCopier(bodyID: bodyID)
            #expect(try copyAll(&copier, bufferSize: bufferSize) == body, "buffer of \(bufferSize)")
            // The end stays the end.
            #expect(try copyAll(&copier, bufferSize: bufferSize).isEmpty)
        }
        var whole = Data(count: size)
        try whole.withUnsafeMutableBytes { try store.copyBody(bodyID: bodyID, into: $0) }
        #expect(whole == body)
    }

    @Test func aChunkFoundDamagedIsNeverReportedAsCopied() async throws {
        // Given: three chunks, the second damaged in the file
        let body = makeBody(size: 2 * Self.chunk + 100, seed: 4)
        let bodyID = try #require(try await store.save(makeEntry("https://example.test/big"), body: body).bodyID)
        try damage("UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(bodyID) AND seq = 1")

        // When
        var copier = store.bodyCopier(bodyID: bodyID)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunk, alignment: 1)
        defer { buffer.deallocate() }
        let first = try copier.copy(into: buffer)
        let error = try #require(throws: CacheStore.Error.self) { try copier.copy(into: buffer) }

        // Then: the sound first chunk came through, the damaged one did not
        #expect(first == Self.chunk)
        #expect(error.code == .damagedBody)
        var whole = Data(count: body.count)
        let wholeError = try #require(throws: CacheStore.Error.self) {
            try whole.withUnsafeMutableBytes { try store.copyBody(bodyID: bodyID, into: $0) }
        }
        #expect(wholeError.code == .damagedBody)
    }

    @Test func aBodyWithoutChunkChecksumsIsCheckedBeforeItsLastBytesAreReported() async throws {
        let body = makeBody(size: 2 * Self.chunk + 100, seed: 5)
        let bodyID = try #require(try await store.save(makeEntry("https://example.test/old"), body: body).bodyID)
        try damage("UPDATE body_chunk SET checksum = NULL")
        try damage("UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(bodyID) AND seq = 2")

        var copier = store.bodyCopier(bodyID: bodyID)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunk, alignment: 1)
        defer { buffer.deallocate() }
        #expect(try copier.copy(into: buffer) == Self.chunk)
        #expect(try copier.copy(into: buffer) == Self.chunk)
        let error = try #require(throws: CacheStore.Error.self) { try copier.copy(into: buffer) }
        #expect(error.code == .damagedBody)
    }

    @Test func aBufferOfAnotherSizeThanTheBodyIsRefusedAsAMismatch() async throws {
        let bodyID = try #require(try await store.save(makeEntry("https://example.test/a"),
                                                       body: makeBody(size: 5_000, seed: 6)).bodyID)
        var short = Data(count: 4_999)
        let error = try #require(throws: CacheStore.Error.self) {
            try short.withUnsafeMutableBytes { try store.copyBody(bodyID: bodyID, into: $0) }
        }
        #expect(error.code == .damagedBody)
        var missing = Data(count: 10)
        let missingError = try #require(throws: CacheStore.Error.self) {
            try missing.withUnsafeMutableBytes { try store.copyBody(bodyID: 9_999, into: $0) }
        }
        #expect(missingError.code == .bodyMissing)
    }
}
