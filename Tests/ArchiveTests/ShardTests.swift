import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCache
import WebCacheTestSupport

@testable import CacheStore

/// `preload --shard K/N`: a fixed hash of the registrable domain, the same everywhere; four shards
/// merged give the store one run gives.
@Suite(.timeLimit(.minutes(3)))
struct ShardTests {
    @Test(arguments: [
        // FNV-1a 64 of the key, modulo 4, as Python computes it.
        ("https://www.example.co.uk/a", "example.co.uk", 3),
        ("https://cdn.example.co.uk/b.css", "example.co.uk", 3),
        ("http://127.0.0.1:8080/", "127.0.0.1", 2),
        ("http://0x7f.1:8080/", "0x7f.1", 1),
        ("https://EXAMPLE.com/", "example.com", 2),
        ("https://site.github.io/", "site.github.io", nil),
    ])
    func shardsByRegistrableDomainWithAFixedHash(url: String, key: String, shard: Int?) throws {
        let parsed = try #require(URL(string: url))
        #expect(PreloadShard.key(of: parsed) == key)
        if let shard { #expect(PreloadShard.shard(of: parsed, count: 4) == shard) }
        // Every URL is in exactly one of the shards.
        for count in 1...9 {
            let owners = (0..<count).filter { PreloadShard(index: $0, count: count)!.contains(parsed) }
            #expect(owners.count == 1)
        }
    }

    @Test func fourShardsMergedHoldWhatOneRunHolds() async throws {
        // Given a generated site served under four names of the loopback address, one per shard
        let folder = try TemporaryFolder()
        let generator = try await ExternalTools.run(
            "/usr/bin/python3",
            [Repository.file("scripts/generate-site.py").path, folder.path("gen"), "--pages", "12", "--requisites", "4",
             "--small"])
        try #require(generator.exitCode == 0, "\(generator.error)")
        let server = OriginServer(handler: StaticSite(root: URL(fileURLWithPath: folder.path("gen/site"))).handler)
        try server.start()
        defer { server.stop() }
        let hosts = ["127.0.1", "0x7f.1", "localhost", "0x7f000001"]
        let paths = try String(contentsOfFile: folder.path("gen/urls.txt"), encoding: .utf8).split(separator: "\n")
        let urls = paths.enumerated().map { "http://\(hosts[$0.offset % hosts.count]):\(server.port)/\($0.element)" }
        let list = try folder.write(Data((urls.joined(separator: "\n") + "\n").utf8), to: "urls.txt")
        let webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)

        // When
        let single = try await webcache.run(["preload", list, "--store", folder.path("single.sqlite")])
        var shardStores: [String] = []
        var shardCounts: [Int] = []
        for index in 0..<4 {
            let path = folder.path("shard-\(index).sqlite")
            let run = try await webcache.run(["preload", list, "--shard", "\(index)/4", "--store", path])
            try #require(run.exitCode == 0, "shard \(index): \(run.stderr)")
            let line = try #require(run.stderr.split(separator: "\n").first { $0.hasPrefix("Shard \(index)/4: ") })
            shardCounts.append(Int(line.split(separator: " ")[2]) ?? -1)
            shardStores.append(path)
        }
        let merge = try await webcache.run(["merge"] + shardStores + ["--into", folder.path("merged.sqlite")])

        // Then every URL went to exactly one shard, one per host
        #expect(single.exitCode == 0, "\(single.stderr)")
        #expect(merge.exitCode == 0, "\(merge.stderr)")
        #expect(shardCounts == [3, 3, 3, 3])
        for (index, path) in shardStores.enumerated() {
            let pageHosts = Set(try ArchiveSite.entries(of: path).map(\.entry.host))
            #expect(pageHosts == [hosts[index]], "shard \(index) holds \(pageHosts)")
        }
        // and the merged store holds the same entries and bodies as the single run
        let one = try ArchiveSite.entries(of: folder.path("single.sqlite"))
        let merged = try ArchiveSite.entries(of: folder.path("merged.sqlite"))
        #expect(one.count == merged.count)
        #expect(one.map(\.entry.url) == merged.map(\.entry.url))
        #expect(one.map(\.body) == merged.map(\.body))
        #expect(one.map(\.entry.headers["ETag"]) == merged.map(\.entry.headers["ETag"]))
        #expect(try await webcache.run(["verify", "--store", folder.path("merged.sqlite")]).exitCode == 0)
        // and inspect --pages says the same of every page, what each left out for the device included
        let pagesOfOne = try await webcache.run(["inspect", "--pages", "--store", folder.path("single.sqlite")])
        let pagesMerged = try await webcache.run(["inspect", "--pages", "--store", folder.path("merged.sqlite")])
        #expect(pagesOfOne.stdout.contains("  skipped for this device: "), "\(pagesOfOne.stdout)")
        #expect(pagesMerged.stdout == pagesOfOne.stdout)
    }
}
