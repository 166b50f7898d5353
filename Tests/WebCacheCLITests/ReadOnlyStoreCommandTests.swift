import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache` executable on a store it cannot write, made so with real read-only mounts
/// (root ignores file modes): the commands that only read work, those that write refuse before
/// they send anything, with one sentence naming the store.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Mounts.areAvailable, "read-only mounts need root"))
final class ReadOnlyStoreCommandTests: Sendable {
    /// What is read-only.
    enum Setup: String, CaseIterable, Sendable {
        /// The store's whole file system.
        case fileSystem
        /// The store's folder; the store file itself can be written.
        case folder
        /// The store file; its folder can be written.
        case file
    }

    let folder: TemporaryFolder
    let server: OriginServer
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        server = try TestOrigin.start()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    deinit {
        server.stop()
    }

    /// Preloads the page into a store on a tmpfs, makes what `setup` names read-only, and runs
    /// `body` with the path under which the store is then seen.
    private func withReadOnlyStore(_ setup: Setup, _ body: (String) async throws -> Void) async throws {
        try await Mounts.with { mounts in
            let mountPoint = folder.path("mnt")
            try await mounts.tmpfs(at: mountPoint, size: "16m")
            let path = mountPoint + "/store.sqlite"
            let list = try folder.write(Data("page.html\n".utf8), to: "urls.txt")
            let preload = try await webcache.run(
                ["preload", list, "--instance", server.baseURL.absoluteString, "--store", path])
            try #require(preload.exitCode == 0, "preload failed: \(preload.stderr)")
            switch setup {
            case .fileSystem:
                try await mounts.remount(mountPoint, options: "remount,ro")
                try await body(path)
            case .folder:
                let readOnly = folder.path("read-only")
                try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false)
                try await mounts.bind(mountPoint, at: readOnly, readOnly: true)
                try await mounts.bind(path, at: readOnly + "/store.sqlite", readOnly: false)
                try await body(readOnly + "/store.sqlite")
            case .file:
                try await mounts.bind(path, at: path, readOnly: true)
                try await body(path)
            }
        }
    }

    @Test(arguments: Setup.allCases)
    func theCommandsThatOnlyReadWork(setup: Setup) async throws {
        try await withReadOnlyStore(setup) { path in
            let get = try await webcache.run(
                ["get", "--policy", "cache-only", server.url("/page.html").absoluteString, "--store", path])
            #expect(get.exitCode == 0, "\(get.stderr)")
            #expect(get.stdout == TestOrigin.page)
            let inspect = try await webcache.run(["inspect", "--store", path])
            #expect(inspect.exitCode == 0, "\(inspect.stderr)")
            #expect(inspect.stdout.contains("Entries:     3 "))
            let pages = try await webcache.run(["inspect", "--pages", "--store", path])
            #expect(pages.exitCode == 0, "\(pages.stderr)")
            let verify = try await webcache.run(["verify", "--store", path])
            #expect(verify.exitCode == 0, "\(verify.stderr)")
            #expect(verify.stdout == "ok: 3 entries, 3 bodies checked\n")
            let salvage = try await webcache.run(["salvage", path, folder.path("saved.sqlite")])
            #expect(salvage.exitCode == 0, "\(salvage.stderr)")
        }
    }

    /// A dry run only reads: it lists what would go from a store it may not write, and leaves the
    /// store file byte for byte as it was.
    @Test(arguments: Setup.allCases)
    func aDryRunPruneListsWhatWouldGoAndChangesNothing(setup: Setup) async throws {
        try await withReadOnlyStore(setup) { path in
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let page = server.url("/page.html").absoluteString
            for command in [
                ["prune", "--dry-run", "--url-pattern", "*"], ["prune", "-n", "--max-size", "1"],
                ["prune", "--dry-run", "--page", page],
            ] {
                let result = try await webcache.run(command + ["--store", path])
                let name = command.joined(separator: " ")
                #expect(result.exitCode == 0, "\(name): \(result.stderr)")
                #expect(result.stdout.contains("Would remove 3 entries ("), "\(name): \(result.stdout)")
                #expect(result.stdout.hasSuffix("Nothing was removed (--dry-run).\n"), "\(name): \(result.stdout)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test(arguments: Setup.allCases)
    func theCommandsThatWriteRefuseBeforeSendingAnything(setup: Setup) async throws {
        try await withReadOnlyStore(setup) { path in
            let requests = server.requestCount
            let list = try folder.write(Data("page.html\nabout.html\n".utf8), to: "more.txt")
            let page = server.url("/page.html").absoluteString
            for command in [
                ["preload", list, "--instance", server.baseURL.absoluteString], ["refresh"], ["get", page],
                ["get", "--policy", "reload", page], ["prune", "--expired"], ["pin", page],
            ] {
                let result = try await webcache.run(command + ["--store", path])
                let name = command.joined(separator: " ")
                #expect(result.exitCode == 1, "\(name): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(name): \(result.stdout)")
                #expect(result.stderr.hasPrefix("Error: "), "\(name): \(result.stderr)")
                #expect(result.stderr.contains("The cache store '\(path)' is read-only: "), "\(name): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(name): \(result.stderr)")
                #expect(!result.stderr.contains("SQLite error"), "\(name): \(result.stderr)")
            }
            #expect(server.requestCount == requests)
        }
    }
}
