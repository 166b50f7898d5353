import CSQLite
import CacheStore
import Foundation
import HTTPCore

#if canImport(CMimalloc)
    // The executable's allocator, as in `webcache`: what the benchmarks measure is what a user runs.
    import CMimalloc
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Store benchmark and test helper.
///
/// - `webcache-bench store [--directory <dir>] [--hits]`: measures hit lookups against a raw SQLite
///   SELECT, writes per second and pruning (with `--hits`, the hit lookups alone), and prints a table.
/// - `webcache-bench loader [--directory <dir>] [--count hit|memory|select --loads <n>]`: the loader's hit
///   path, from the store and from its memory, against a raw SQLite SELECT; with `--count`, only `n`
///   untimed loads of one side, for callgrind.
/// - `webcache-bench scan [--measure | --passes <n> [--html | --css] | --corpus <dir>]`: HTML and CSS
///   scanning throughput (``ScanBenchmark``).
/// - `webcache-bench write-loop --store <path> [--urls <n>] [--seed <n>] [--count <n>]`: saves entries
///   with multi-chunk streamed bodies in a loop, overwriting the same URLs with new content; each
///   entry carries `X-Content-SHA256` and `X-Content-Length` describing its body. Used by the crash
///   and multi-process tests. Without `--count` it runs until killed.
@main
struct BenchMain {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard !arguments.isEmpty else {
            let usage = "Usage: webcache-bench store | loader | scan | write-loop --store <path>\n"
            FileHandle.standardError.write(Data(usage.utf8))
            exit(64)
        }
        let mode = arguments.removeFirst()
        do {
            switch mode {
            case "store":
                try await StoreBenchmark(
                    directory: option("--directory", in: arguments), hitsOnly: arguments.contains("--hits")
                ).run()
            case "loader":
                var count: LoaderBenchmark.Count?
                if let side = option("--count", in: arguments) {
                    guard let side = LoaderBenchmark.Count.Side(rawValue: side),
                        let loads = Int(option("--loads", in: arguments) ?? ""), loads >= 0
                    else {
                        let message = "Error: '--count' takes hit, memory or select, with '--loads <n>'\n"
                        FileHandle.standardError.write(Data(message.utf8))
                        exit(64)
                    }
                    count = LoaderBenchmark.Count(side: side, loads: loads)
                }
                try await LoaderBenchmark(directory: option("--directory", in: arguments), count: count).run()
            case "scan":
                try ScanBenchmark(arguments: arguments).run()
            case "write-loop":
                guard let path = option("--store", in: arguments) else {
                    FileHandle.standardError.write(Data("Error: Missing '--store <path>'\n".utf8))
                    exit(64)
                }
                try await WriteLoop(
                    path: path,
                    urlCount: Int(option("--urls", in: arguments) ?? "") ?? 4,
                    seed: UInt64(option("--seed", in: arguments) ?? "") ?? 1,
                    count: Int(option("--count", in: arguments) ?? "")
                ).run()
            default:
                FileHandle.standardError.write(Data("Error: Unknown mode '\(mode)'\n".utf8))
                exit(64)
            }
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            exit(1)
        }
    }

    private static func option(_ name: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}

/// Deterministic pseudo-random bytes (xorshift64*), cheap enough to fill megabytes.
struct ContentGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    mutating func bytes(count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < count {
                state ^= state >> 12
                state ^= state << 25
                state ^= state >> 27
                var word = state &* 0x2545_F491_4F6C_DD1D
                let take = min(8, count - offset)
                withUnsafeBytes(of: &word) { wordBytes in
                    buffer.baseAddress!.advanced(by: offset).copyMemory(from: wordBytes.baseAddress!, byteCount: take)
                }
                offset += take
            }
        }
        return data
    }
}

/// Hex text of bytes.
func hex(_ data: Data) -> String {
    data.map { String(format: "%02x", $0) }.joined()
}
