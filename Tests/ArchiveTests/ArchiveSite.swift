import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A small site on 127.0.0.1 for the archive tests, and a store preloaded from it.
///
/// The page needs a stylesheet, two images with the same bytes under two URLs (so an export holds a
/// revisit record), a text the origin always sends gzip-coded (stored decoded), a text that varies
/// by `Accept-Language`, and a binary file. Outside the page: a binary file served in ranges, for
/// partial entries, and an empty text.
class ArchiveSite: @unchecked Sendable {  // Every stored property is a constant.
    let folder: TemporaryFolder
    let server: OriginServer
    let webcache: WebcacheRunner
    /// The store the site is preloaded into by ``preload()``.
    let store: String

    static let page = """
        <html><head><link rel=stylesheet href=/style.css></head><body><img src=/a.svg><img src=/b.svg>
        <img src=/bytes.bin><script src=/coded.txt></script><script src=/vary.txt></script></body></html>

        """
    static let stylesheet = "body { color: teal }\n"
    static let image = "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>\n"
    static let binary = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
    /// Served in ranges at `/ranged.bin`.
    static let ranged = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
    /// "hello gzip " 100 times, gzip-coded.
    static let codedText = Data(base64Encoded: "H4sIAIylDGsC/8tIzcnJV0ivyixQyBhljjJHmaNMcpkATFbXD0wEAAA=")!

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
        store = folder.path("store.sqlite")
        server = OriginServer { request in
            let cache: HTTPHeaders = ["Cache-Control": "max-age=600", "ETag": "\"\(request.path.count)\""]
            switch request.path {
            case "/", "/page.html":
                return .text(Self.page, contentType: "text/html; charset=utf-8", headers: cache)
            case "/style.css":
                return .text(Self.stylesheet, contentType: "text/css", headers: cache)
            case "/a.svg", "/b.svg":
                return .text(Self.image, contentType: "image/svg+xml", headers: cache)
            case "/bytes.bin":
                return OriginResponse(
                    headers: ["Content-Type": "application/octet-stream", "Cache-Control": "max-age=3600"],
                    body: .bytes(Self.binary))
            case "/coded.txt":
                return OriginResponse(
                    headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip", "Cache-Control": "max-age=600",
                              "ETag": "\"gz\""],
                    body: .bytes(Self.codedText))
            case "/ranged.bin":
                return .ranged(Self.ranged, headers: ["Content-Type": "application/octet-stream", "ETag": "\"r1\"",
                                                      "Cache-Control": "max-age=600"], request: request)
            case "/empty.txt":
                return .text("", headers: cache)
            case "/vary.txt":
                return .text(
                    "language: \(request.headers["Accept-Language"] ?? "none")\n",
                    headers: ["Cache-Control": "max-age=600", "Vary": "Accept-Language"])
            default:
                return .text("Not found: \(request.path)\n", status: 404)
            }
        }
        try server.start()
    }

    deinit {
        server.stop()
    }

    /// The absolute URL of `path` on the site.
    func url(_ path: String) -> String {
        server.url(path).absoluteString
    }

    /// Runs `webcache` with `arguments`.
    func run(_ arguments: String...) async throws -> WebcacheRunner.Result {
        try await webcache.run(arguments)
    }

    /// Preloads the page with everything it needs into ``store``.
    func preload() async throws {
        let list = try folder.write(Data((url("/page.html") + "\n").utf8), to: "urls.txt")
        let result = try await run("preload", list, "--store", store, "-H", "Accept-Language: fr")
        try #require(result.exitCode == 0, "preload failed: \(result.stderr)")
        let entries = try Self.entries(of: store)
        try #require(entries.count == 7, "preload stored \(entries.map(\.entry.url))")
    }

    /// The positions of the two parts ``storeParts()`` stores, each 1,000 bytes long.
    static let partStarts = [1_000, 5_000]

    /// Stores bytes 1000-1999 and 5000-5999 of `/ranged.bin` as `get` with a Range header does: one
    /// partial entry with two parts. Then the empty text, whose body is the empty body the partial
    /// entry points at.
    func storeParts() async throws {
        for first in Self.partStarts {
            let got = try await run("get", "--store", store, "-H", "Range: bytes=\(first)-\(first + 999)",
                                    url("/ranged.bin"))
            try #require(got.exitCode == 0, "\(got.stderr)")
        }
        let empty = try await run("get", "--store", store, url("/empty.txt"))
        try #require(empty.exitCode == 0, "\(empty.stderr)")
        let entries = try Self.entries(of: store).map(\.entry)
        let partial = try #require(entries.first { $0.url == url("/ranged.bin") })
        try #require(partial.isPartial && partial.bodySize == 2_000, "\(partial)")
    }

    /// An entry with its body, as compared across stores.
    struct StoredEntry: Sendable {
        var entry: CacheEntry
        var body: Data
    }

    /// Every entry of the store at `path` with its body, by partition, URL and Vary key.
    static func entries(of path: String) throws -> [StoredEntry] {
        var configuration = CacheStore.Configuration()
        configuration.readOnly = true
        let store = try CacheStore(path: path, configuration: configuration)
        var result: [StoredEntry] = []
        var last: Int64 = 0
        while true {
            let page = try store.entries(after: last, limit: 100)
            guard let id = page.last?.id else { break }
            last = id
            for entry in page { result.append(StoredEntry(entry: entry, body: try store.bodyData(bodyID: entry.bodyID!))) }
        }
        return result.sorted { ($0.entry.partition, $0.entry.url, $0.entry.varyKey) < ($1.entry.partition, $1.entry.url, $1.entry.varyKey) }
    }

    /// Checks that `copy` holds the entries of `original`: same identities, statuses, headers (but
    /// those an archive adds), bodies, decoded coding, pins, and times within `tolerance` seconds.
    static func expectSameEntries(
        _ copy: [StoredEntry], as original: [StoredEntry], tolerance: TimeInterval,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(copy.map(\.entry.url) == original.map(\.entry.url), sourceLocation: sourceLocation)
        for (mine, theirs) in zip(copy, original) {
            let (a, b) = (mine.entry, theirs.entry)
            #expect(a.partition == b.partition && a.varyKey == b.varyKey && a.status == b.status,
                    "\(a.url)", sourceLocation: sourceLocation)
            var expectedHeaders = b.headers
            if b.decodedFrom == nil, !b.headers.contains("Content-Length") {
                expectedHeaders.append(name: "Content-Length", value: String(b.bodySize))
            }
            #expect(a.headers == expectedHeaders, "\(a.url)", sourceLocation: sourceLocation)
            #expect(mine.body == theirs.body, "\(a.url)", sourceLocation: sourceLocation)
            #expect(a.decodedFrom == b.decodedFrom, "\(a.url)", sourceLocation: sourceLocation)
            #expect(a.pinned == b.pinned, "\(a.url)", sourceLocation: sourceLocation)
            for (x, y) in [(a.requestTime, b.requestTime), (a.responseTime, b.responseTime), (a.freshUntil, b.freshUntil)] {
                #expect(abs(x.timeIntervalSince(y)) <= tolerance, "\(a.url): \(x) vs \(y)", sourceLocation: sourceLocation)
            }
        }
    }
}
