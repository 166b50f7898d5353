import CacheStore
import Foundation
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Saves entries with streamed multi-chunk bodies in a loop, overwriting the same URLs.
struct WriteLoop {
    let path: String
    let urlCount: Int
    let seed: UInt64
    let count: Int?

    func run() async throws {
        let store = try CacheStore(path: path)
        var generator = ContentGenerator(seed: seed &* 1_000_003 &+ UInt64(getpid()))
        var iteration = 0
        while count.map({ iteration < $0 }) ?? true {
            let url = "https://crash.test/resource/\(iteration % urlCount)"
            // Two to three chunks, so that a kill can land between staged chunks and the save.
            let size =
                2 * CacheStore.chunkSize + Int(generator.bytes(count: 2).withUnsafeBytes { $0.load(as: UInt16.self) })
                * 3
            let content = generator.bytes(count: size)
            let now = Date()
            let entry = CacheEntry(
                url: url,
                status: 200,
                headers: [
                    "Content-Type": "application/octet-stream",
                    "X-Content-SHA256": hex(SHA256.hash(content)),
                    "X-Content-Length": String(size),
                    "X-Writer": "\(getpid())-\(iteration)",
                ],
                requestTime: now,
                responseTime: now,
                freshUntil: now.addingTimeInterval(3600)
            )
            var writer = store.makeBodyWriter()
            var offset = 0
            while offset < content.count {
                let end = min(offset + 64 * 1024, content.count)
                try await writer.write(content.subdata(in: offset..<end))
                offset = end
            }
            try await store.save(entry, body: writer)
            iteration += 1
            // Unbuffered, so that a parent waiting for progress sees each save at once.
            FileHandle.standardOutput.write(Data("saved \(iteration)\n".utf8))
        }
        try await store.close()
    }
}
