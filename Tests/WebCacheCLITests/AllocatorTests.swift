import Foundation
import Testing
import WebCacheTestSupport

/// The executable's memory allocator: mimalloc, for every library in the process (the `CMimalloc`
/// target in Package.swift).
@Suite(.timeLimit(.minutes(5)))
struct AllocatorTests {
    /// What the dynamic linker reports binding (`LD_DEBUG=bindings`): every call of `malloc`,
    /// `calloc`, `realloc` and `free`, from the executable and each library it loads (the Swift
    /// runtime, Foundation, SQLite, libcurl…), goes to libmimalloc, none to the C library.
    @Test func everyLibrarysAllocationsAreBoundToMimalloc() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let webcache = WebcacheRunner(home: folder, extraEnvironment: ["LD_DEBUG": "bindings"])

        let result = try await webcache.run(["--version"])

        #expect(result.exitCode == 0)
        var targets: [String: Set<String>] = [:]
        for line in result.stderr.split(separator: "\n") {
            guard let symbol = Self.symbol(in: line), Self.allocation.contains(symbol),
                let target = Self.target(in: line)
            else { continue }
            targets[symbol, default: []].insert(target)
        }
        for symbol in Self.allocation {
            let bound = targets[symbol] ?? []
            #expect(!bound.isEmpty, "no binding of \(symbol) was reported")
            #expect(bound.allSatisfy { $0.contains("/libmimalloc.so") }, "\(symbol) is bound to \(bound.sorted())")
        }
    }

    /// The C library's allocation functions that mimalloc replaces.
    private static let allocation = ["malloc", "calloc", "realloc", "free"]

    /// The symbol a binding line names: "… normal symbol `malloc' [GLIBC_2.2.5]".
    private static func symbol(in line: Substring) -> String? {
        guard let start = line.range(of: "symbol `"), let end = line[start.upperBound...].firstIndex(of: "'") else {
            return nil
        }
        return String(line[start.upperBound..<end])
    }

    /// The file a binding line binds to: "binding file A [0] to B [0]: …".
    private static func target(in line: Substring) -> String? {
        guard let start = line.range(of: " to "), let end = line[start.upperBound...].firstIndex(of: " ") else {
            return nil
        }
        return String(line[start.upperBound..<end])
    }
}
