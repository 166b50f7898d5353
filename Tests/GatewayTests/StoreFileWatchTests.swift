import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCache

@testable import Gateway

/// A gateway whose store file is removed under it says so: it would otherwise go on serving and
/// storing with a file that is gone when it stops.
@Suite(.timeLimit(.minutes(2)))
struct StoreFileWatchTests {
    @Test func aGatewayWarnsOnceWhenItsStoreFileIsRemoved() async throws {
        let warnings = Mutex<[String]>([])
        try await GatewayHarness.run(
            origin: { _ in .text("hello") },
            configure: { configuration, _ in
                configuration.storeFileCheckInterval = .milliseconds(20)
                configuration.logger = Logger(level: .warning) { _, message in warnings.withLock { $0.append(message) } }
            }
        ) { harness in
            let path = harness.cache.store.path
            #expect(harness.cache.store.isStillAtItsPath)
            // When the file is removed
            try FileManager.default.removeItem(atPath: path)
            // Then a warning names it, once, however many checks follow
            var seen: [String] = []
            for _ in 0..<3_000 {
                seen = warnings.withLock { $0 }.filter { $0.contains("was removed or replaced") }
                if !seen.isEmpty { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(seen.count == 1, "\(warnings.withLock { $0 })")
            #expect(seen[0].contains("'\(path)'"))
            #expect(!harness.cache.store.isStillAtItsPath)
        }
        #expect(warnings.withLock { $0 }.count { $0.contains("was removed or replaced") } == 1)
    }
}
