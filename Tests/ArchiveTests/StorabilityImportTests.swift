import Archive
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `import` stores what the loader would store of the exchanges an archive holds (RFC 9111 §3): a
/// response or request with `no-store` is skipped and counted with its reason, and so is a response
/// to a request with `Authorization` in the guest partition, unless the response allows a shared
/// cache to keep it (§3.5); in a signed-in partition, which only its user reads, it is stored.
@Suite(.timeLimit(.minutes(2)))
struct StorabilityImportTests {
    let folder: TemporaryFolder
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    /// An exchange as a recorder writes it.
    private struct Exchange {
        var path: String
        var request: HTTPHeaders = [:]
        var response: HTTPHeaders
        var partition: String?
        var stored: Bool
        var url: String { "https://site.test" + path }
        var body: String { "content of \(path)\n" }
    }

    private static let exchanges = [
        Exchange(path: "/no-store", response: ["Cache-Control": "no-store"], stored: false),
        Exchange(path: "/asked-no-store", request: ["Cache-Control": "no-store"],
                 response: ["Cache-Control": "max-age=600"], stored: false),
        Exchange(path: "/signed", request: ["Authorization": "Bearer secret"],
                 response: ["Cache-Control": "max-age=600"], stored: false),
        Exchange(path: "/signed-public", request: ["Authorization": "Bearer secret"],
                 response: ["Cache-Control": "public, max-age=600"], stored: true),
        Exchange(path: "/signed-mine", request: ["Authorization": "Bearer secret"],
                 response: ["Cache-Control": "max-age=600"], partition: "user-alice", stored: true),
        Exchange(path: "/plain", response: ["Cache-Control": "max-age=600"], stored: true),
    ]

    /// Writes ``exchanges`` as a WARC file: each response record, then its request record.
    private func writeWARC() throws -> String {
        let path = folder.path("exchanges.warc")
        var records: [WARCFixture.HTTPRecord] = []
        for exchange in Self.exchanges {
            let fields: HTTPHeaders = exchange.partition.map { ["WebCache-Partition": $0] } ?? [:]
            let response = WARCFixture.HTTPRecord.response(
                exchange.url, headers: exchange.response, body: Data(exchange.body.utf8), fields: fields)
            records.append(response)
            records.append(.request(exchange.url, headers: exchange.request, for: response))
        }
        try WARCFixture.write(records, to: path)
        return path
    }

    /// Writes ``exchanges`` as a HAR file.
    private func writeHAR() throws -> String {
        func pairs(_ headers: HTTPHeaders) -> [[String: String]] {
            headers.map { ["name": $0.name, "value": $0.value] }
        }
        let entries: [[String: Any]] = Self.exchanges.map { exchange in
            var entry: [String: Any] = [
                "startedDateTime": HARDate.format(Date()), "time": 1,
                "request": ["method": "GET", "url": exchange.url, "headers": pairs(exchange.request)],
                "response": [
                    "status": 200, "headers": pairs(exchange.response),
                    "content": ["size": exchange.body.utf8.count, "text": exchange.body],
                ],
            ]
            if let partition = exchange.partition { entry["_partition"] = partition }
            return entry
        }
        let json = try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": entries]])
        return try folder.write(json, to: "exchanges.har")
    }

    @Test(arguments: ["warc", "har"])
    func whatTheLoaderWouldNotStoreIsSkippedAndCountedWithItsReason(format: String) async throws {
        // Given
        let archive = format == "har" ? try writeHAR() : try writeWARC()
        let target = folder.path("target.sqlite")

        // When
        let imported = try await webcache.run(["import", "--store", target, archive])
        let json = try await webcache.run(["import", "--json", "--store", folder.path("other.sqlite"), archive])
        let verify = try await webcache.run(["verify", "--store", target])

        // Then
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stderr.isEmpty, "\(imported.stderr)")
        let bytes = Self.exchanges.filter(\.stored).map(\.body.utf8.count).reduce(0, +)
        #expect(imported.stdout == "Imported 3 entries (0 from revisit records, \(bytes) B of bodies); skipped 3 "
            + "records that are not HTTP responses to store (among them: 1 request has Authorization and response "
            + "does not allow storing it; 1 request has no-store; 1 response has no-store); 0 damaged.\n")
        let summary = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        #expect(summary["skipped"] as? Int == 3)
        #expect(summary["notStorable"] as? [String: Int] == [
            "request has Authorization and response does not allow storing it": 1, "request has no-store": 1,
            "response has no-store": 1,
        ])
        let stored = try ArchiveSite.entries(of: target)
        let expected = Self.exchanges.filter(\.stored).map { "\($0.partition ?? "guest") \($0.url)" }.sorted()
        #expect(stored.map { "\($0.entry.partition) \($0.entry.url)" } == expected)
        for entry in stored {
            #expect(entry.body == Data("content of \(URL(string: entry.entry.url)?.path ?? "")\n".utf8))
        }
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }
}
