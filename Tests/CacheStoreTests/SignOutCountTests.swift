import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A partition's sign-outs as the store counts them for every connection that shares the file
/// (``CacheStore/signOut(partition:)``): a save begun before one saves nothing after it.
@Suite(.timeLimit(.minutes(5)))
struct SignOutCountTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    @Test func aSignOutThroughAnotherOpeningOfTheStoreWithdrawsTheSavesBegunBefore() async throws {
        // Given two openings of one store file, as two processes have
        let running = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
        let other = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
        let begun = try running.signOutCount(partition: "user-1")
        let condition = CacheStore.SaveCondition(partition: "user-1", signOutCount: begun)
        var first = running.makeBodyWriter()
        try await first.write(Data("before".utf8))
        try await running.save(makeEntry("https://example.test/a", partition: "user-1"), body: first, onlyIf: condition)

        // When the other signs the user out
        let (removed, count) = try await other.signOut(partition: "user-1")

        // Then the partition is empty, the count moved on, and a save begun before saves nothing
        #expect(removed.entryCount == 1)
        #expect(count == begun + 1)
        #expect(try running.signOutCount(partition: "user-1") == count)
        #expect(try running.signOutCount(partition: "user-2") == 0)
        var second = running.makeBodyWriter()
        try await second.write(Data("after".utf8))
        let refusal = await #expect(throws: CacheStore.Error.self) {
            try await running.save(makeEntry("https://example.test/b", partition: "user-1"), body: second,
                                   onlyIf: condition)
        }
        #expect(refusal?.code == .withdrawn)
        #expect(try running.entry(partition: "user-1", url: "https://example.test/b") == nil)
        await #expect(throws: CacheStore.Error.self) {
            try await running.setEdges(["https://example.test/c": [PageEdge(resourceURL: "https://example.test/c",
                                                                              kind: "page")]],
                                       partition: "user-1", onlyIf: condition)
        }
        #expect(try running.edges(forPage: "https://example.test/c", partition: "user-1").isEmpty)
        // Work begun under the new count saves again.
        var third = running.makeBodyWriter()
        try await third.write(Data("new session".utf8))
        try await running.save(makeEntry("https://example.test/d", partition: "user-1"), body: third,
                               onlyIf: CacheStore.SaveCondition(partition: "user-1", signOutCount: count))
        #expect(try running.entry(partition: "user-1", url: "https://example.test/d") != nil)
        try await running.close()
        try await other.close()
    }
}
