import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport
import WebCache

/// Store files hold private data: only their owner may read them.
@Suite struct StoreFileModeTests {
    @Test func storeFilesAreReadableByTheirOwnerOnly() async throws {
        let server = try startOrigin { _ in .text("x", headers: ["Cache-Control": "max-age=60"]) }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let storePath = folder.path("fresh/folder/store.sqlite")
        var configuration = WebCache.Configuration(environment: ["HOME": folder.url.path])
        configuration.storePath = storePath
        let cache = try WebCache(configuration: configuration)
        _ = try await cache.data(for: WebRequest(url: server.url("x")))
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: storePath + suffix)
            let mode = try #require(attributes[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "store\(suffix) has mode \(String(mode, radix: 8))")
        }
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder.path("fresh/folder"))
        let folderMode = folderAttributes[.posixPermissions]
        #expect((folderMode as? Int).map { $0 & 0o077 } == 0)
        await cache.close()
    }
}
