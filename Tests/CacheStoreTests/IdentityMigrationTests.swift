import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport
@testable import CacheStore

/// Schema version 8: the signed-in users' partitions of before become `unclaimed-…`, which no identity
/// is given; guest entries stay; credential sources are bound to the identity they were found to be.
@Suite struct IdentityMigrationTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    @Test func partitionsOfUsersNamedBeforeVersion8AreClaimedByNobody() async throws {
        // Given a store of version 5 with a guest entry and an entry and an edge of the old `default` user
        let path = folder.path("version5.sqlite")
        let oldUser = "user-37a8eec1ce19687d132fe29051dca629"
        do {
            let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try connection.execute(sql: "PRAGMA journal_mode = WAL")
            try Migration.migrate(connection, with: Array(Schema.migrations.prefix(5)), retryingFor: 1, path: path)
            try connection.execute(sql: "PRAGMA foreign_keys = ON")
            let body = Data("private page".utf8)
            try connection.run(
                "INSERT INTO body (hash, size, chunk_count, created_at) VALUES (?, ?, 1, 0)",
                [.blob(SHA256.hash(body)), .integer(Int64(body.count))])
            try connection.run("INSERT INTO body_chunk (body_id, seq, data) VALUES (1, 0, ?)", [.blob(body)])
            for partition in ["guest", oldUser] {
                try connection.run(
                    """
                    INSERT INTO entry (partition, method, url, host, status, headers, request_time, response_time, \
                    fresh_until, stored_at, last_access, body_id, body_size) \
                    VALUES (?, 'GET', 'https://v5.test/a', 'v5.test', 200, '', 0, 0, 0, 0, 0, 1, ?)
                    """,
                    [.text(partition), .integer(Int64(body.count))])
            }
            try connection.run(
                "INSERT INTO page_edge VALUES (?, 'https://v5.test/a', 'https://v5.test/a', 'page', NULL)",
                [.text(oldUser)])
        }

        // When this version opens it
        let store = try CacheStore(path: path)

        // Then the old user's entry and edge are in an unclaimed partition, and nothing was lost
        #expect(try store.entry(partition: oldUser, url: "https://v5.test/a") == nil)
        let unclaimed = "unclaimed-37a8eec1ce19687d132fe29051dca629"
        #expect(try store.entry(partition: unclaimed, url: "https://v5.test/a") != nil)
        #expect(try store.entry(partition: "guest", url: "https://v5.test/a") != nil)
        #expect(try store.edges(forPage: "https://v5.test/a", partition: unclaimed).count == 1)
        #expect(try store.totals().entryCount == 2)
        #expect(try await store.verify().isSound)
        try await store.close()
    }

    @Test func aCredentialSourceIsBoundToTheLastIdentityFoundForIt() async throws {
        let store = try CacheStore(path: folder.path("store.sqlite"))
        #expect(try store.boundIdentity(source: "abc") == nil)
        try await store.bindIdentity(source: "abc", to: "instance-user:https://i.test:alice")
        try await store.bindIdentity(source: "def", to: "instance-user:https://i.test:bob")
        try await store.bindIdentity(source: "abc", to: "instance-user:https://i.test:carol")
        #expect(try store.boundIdentity(source: "abc") == "instance-user:https://i.test:carol")
        #expect(try store.boundIdentity(source: "def") == "instance-user:https://i.test:bob")
        try await store.close()
    }
}
