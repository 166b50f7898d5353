import Foundation
import HTTPCore
import LocalOrigin
import WebCache

/// The loader's hit path — `WebCache.data(for:)` on a fresh entry, through the caching rules, the
/// store and the body stream, with the loader's memory off — beside a raw SELECT of the same row
/// through the SQLite C API, and a repeated hit answered from the loader's memory
/// (``WebCache/Configuration-swift.struct/memoryCacheSize``), in rounds that take turns, the fastest
/// round of each side counting. The raw SELECT is timed a second way too, checking each chunk against
/// its CRC-32 as the store's reads do, so that what the check costs a hit is seen apart. Last, the
/// repeated hit from memory is timed again, each load right after the same cache has fetched and
/// stored another URL, as a busy app or gateway stores new responses between its hits: the cache's
/// own saves of other URLs leave the kept answer in memory.
///
/// With a ``Count``, it makes only that many loads of one side after the same setup and warm-up and
/// times nothing: the difference between the instructions of two such runs (counted by callgrind) is
/// what that many hits or SELECTs cost, however busy the machine is.
struct LoaderBenchmark {
    /// Loads of one side to make untimed, for counting instructions.
    struct Count {
        enum Side: String { case hit, memory, select }
        let side: Side
        let loads: Int
    }

    let directory: String?
    let count: Count?

    /// Rounds of each side, and loads or SELECTs in each round.
    private static let rounds = 10
    private static let iterations = 2_000
    /// Repeated loads in each round of the last measure, each after another URL is stored.
    private static let interleavedLoads = 200

    func run() async throws {
        let folder = URL(fileURLWithPath: directory ?? NSTemporaryDirectory())
            .appendingPathComponent("webcache-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var generator = ContentGenerator(seed: 7)
        let body = generator.bytes(count: 10_240)
        let origin = OriginServer { _ in
            OriginResponse(headers: ["Content-Type": "text/html", "Cache-Control": "max-age=3600", "ETag": "\"b\""],
                           body: .bytes(body))
        }
        try origin.start()
        defer { origin.stop() }

        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.appendingPathComponent("store.sqlite").path
        configuration.memoryCacheSize = 0
        let cache = try WebCache(configuration: configuration)
        let request = WebRequest(url: origin.url("page.html"))
        let first = try await cache.data(for: request)
        precondition(first.source == .network && first.body == body, "the first load must come from the network")
        // The same store, through a cache that keeps fresh hits in memory.
        configuration.memoryCacheSize = WebCache.Configuration(environment: [:]).memoryCacheSize
        let remembering = try WebCache(configuration: configuration)

        let raw = try RawReader(path: configuration.storePath)
        let key = origin.url("page.html").cacheKey.absoluteString
        var checksum = 0
        // URLs other than the page fetched and stored (the last measure).
        var stored = 0
        let table: [String]
        if let count {
            // One side only, untimed: what callgrind counts is that side's work.
            for _ in 0..<(1_000 + count.loads) {
                switch count.side {
                case .hit: checksum &+= try await cache.data(for: request).body.count
                case .memory: checksum &+= try await remembering.data(for: request).body.count
                case .select: checksum &+= raw.read(url: key)
                }
            }
            table = ["| \(count.side.rawValue) loads after the warm-up | \(count.loads) |"]
        } else {
            // The two sides take turns, round after round, each timed on its own, and each side's
            // fastest round counts: both meet the same machine, and a round that another process
            // interrupted does not count against either.
            for _ in 0..<1_000 {
                checksum &+= try await cache.data(for: request).body.count
                checksum &+= try await remembering.data(for: request).body.count
                checksum &+= raw.read(url: key)
                checksum &+= raw.read(url: key, checkingChunks: true)
            }
            precondition(raw.read(url: key, checkingChunks: true) == raw.read(url: key),
                         "every chunk must pass its check")
            var hit = Double.infinity
            var memory = Double.infinity
            var select = Double.infinity
            var checkedSelect = Double.infinity
            for _ in 0..<Self.rounds {
                var start = DispatchTime.now()
                for _ in 0..<Self.iterations {
                    checksum &+= try await cache.data(for: request).body.count
                }
                hit = min(hit, microseconds(since: start) / Double(Self.iterations))
                start = DispatchTime.now()
                for _ in 0..<Self.iterations {
                    checksum &+= try await remembering.data(for: request).body.count
                }
                memory = min(memory, microseconds(since: start) / Double(Self.iterations))
                start = DispatchTime.now()
                for _ in 0..<Self.iterations {
                    checksum &+= raw.read(url: key)
                }
                select = min(select, microseconds(since: start) / Double(Self.iterations))
                start = DispatchTime.now()
                for _ in 0..<Self.iterations {
                    checksum &+= raw.read(url: key, checkingChunks: true)
                }
                checkedSelect = min(checkedSelect, microseconds(since: start) / Double(Self.iterations))
            }
            // The repeated hit again, each one after the same cache stored another URL: a commit of
            // its own between every two hits. Only the repeated hits are timed.
            var afterSaves = Double.infinity
            for _ in 0..<Self.rounds {
                var nanoseconds: UInt64 = 0
                for _ in 0..<Self.interleavedLoads {
                    _ = try await remembering.data(for: WebRequest(url: origin.url("other/\(stored)")))
                    stored += 1
                    let start = DispatchTime.now()
                    checksum &+= try await remembering.data(for: request).body.count
                    nanoseconds += DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
                }
                afterSaves = min(afterSaves, Double(nanoseconds) / 1_000 / Double(Self.interleavedLoads))
            }
            table = [
                "| measure | value |",
                "|---|---|",
                String(format: "| loader hit, WebCache.data(for:) (10 KB body, fresh), fastest round | %.2f µs |",
                       hit),
                String(format: "| raw SELECT of the same row + body through the C API, fastest round | %.2f µs |",
                       select),
                String(format: "| ratio | %.2f |", hit / select),
                String(format: "| the same SELECT, each chunk checked against its CRC-32, fastest round | %.2f µs |",
                       checkedSelect),
                String(format: "| ratio to the checked SELECT | %.2f |", hit / checkedSelect),
                String(format: "| repeated hit from the loader's memory, fastest round | %.2f µs |", memory),
                String(format: "| memory ratio | %.2f |", memory / select),
                String(format: "| repeated hit, each after the same cache stored another URL, fastest round "
                    + "| %.2f µs |", afterSaves),
                String(format: "| after another URL was stored, against the repeated hit | %.2f |",
                       afterSaves / memory),
            ]
        }
        precondition(origin.requestCount == 1 + stored, "every load of the page after the first must be a hit")
        if count.map({ $0.side == .memory }) ?? true {
            precondition(remembering.currentMemoryUsage > 0, "repeated hits must come from memory")
        }
        await cache.close()
        await remembering.close()

        for line in table { print(line) }
        if checksum == 0 { print("(checksum \(checksum))") }
    }

    private func microseconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000
    }
}
