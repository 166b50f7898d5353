import ChildProcess
import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Running a command as another user: util-linux's `setpriv`, as root.
enum UserSwitch {
    static let setpriv = "/usr/bin/setpriv"

    static var isAvailable: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
    }
}

/// A store in a folder that every user may write, with the sticky bit (as `/tmp`): the real
/// `webcache` run as another user than the store's owner reads it and leaves nothing behind that
/// keeps the owner from writing its own store (SQLite makes the `-wal` and `-shm` files as the
/// user who first reads, with the store file's mode).
@Suite(.timeLimit(.minutes(5)), .enabled(if: UserSwitch.isAvailable, "needs root and setpriv"))
final class SharedFolderCommandTests: Sendable {
    /// The store's owner and another user; neither needs to exist in the user database.
    static let (owner, reader): (UInt32, UInt32) = (1000, 65534)

    let folder: TemporaryFolder
    let server: OriginServer
    let shared: String
    let store: String

    init() throws {
        folder = try TemporaryFolder()
        server = try TestOrigin.start()
        shared = folder.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        // The temporary folder is the test's own; what is below it must be reachable by the others.
        chmod(folder.url.path, 0o755)
        chmod(shared, 0o1777)
        store = shared + "/store.sqlite"
    }

    deinit {
        server.stop()
        folder.remove()
    }

    /// Runs the built `webcache arguments --store STORE` as `uid` (and its group, no other).
    private func run(as uid: UInt32, _ arguments: [String]) async throws -> (code: Int32, stderr: String) {
        let binary = try BuiltProducts.executable(named: "webcache").path
        let switched = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", binary]
        let process = try ChildProcess.spawn(
            UserSwitch.setpriv, switched + arguments + ["--store", store],
            environment: ["PATH": "/usr/bin:/bin", "HOME": shared, "LANG": "C.UTF-8"], output: .null, error: .pipe)
        let finished = await process.finish()
        guard case .exited(let code) = finished.termination else { return (-1, "\(finished.termination)") }
        return (code, String(decoding: finished.error, as: UTF8.self))
    }

    /// The owner of the file at `path`, or `nil` when there is none.
    private func ownerOf(_ path: String) -> UInt32? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_uid : nil
    }

    @Test func anotherUsersReadLeavesTheOwnerAbleToWrite() async throws {
        // Given a store the owner preloaded and made readable by others (a new store is the owner's alone)
        let list = shared + "/urls.txt"
        try Data((server.url("/page.html").absoluteString + "\n").utf8).write(to: URL(fileURLWithPath: list))
        chmod(list, 0o644)
        let preload = try await run(as: Self.owner, ["preload", list])
        try #require(preload.code == 0, "\(preload.stderr)")
        try #require(ownerOf(store) == Self.owner)
        chmod(store, 0o644)

        // When another user reads it
        let inspect = try await run(as: Self.reader, ["inspect"])
        let page = server.url("/page.html").absoluteString
        let get = try await run(as: Self.reader, ["get", "--policy", "cache-only", page])

        // Then the reads work, leave no file of the reader's beside the store, and the owner writes on
        #expect(inspect.code == 0, "\(inspect.stderr)")
        #expect(get.code == 0, "\(get.stderr)")
        for side in ["-wal", "-shm"] {
            let owner = ownerOf(store + side)
            #expect(owner == nil || owner == Self.owner, "\(side) belongs to \(owner.map(String.init) ?? "-")")
        }
        let prune = try await run(as: Self.owner, ["prune", "--older-than", "0s"])
        #expect(prune.code == 0, "\(prune.stderr)")
        #expect(prune.stderr.isEmpty, "\(prune.stderr)")
    }

    @Test func sideFilesLeftByAnotherUserAreNamedWhenTheOwnerWrites() async throws {
        // Given the owner's store, and a -wal and -shm of another user's beside it (left by an older
        // reader, or another program)
        let list = shared + "/urls.txt"
        try Data((server.url("/page.html").absoluteString + "\n").utf8).write(to: URL(fileURLWithPath: list))
        chmod(list, 0o644)
        try #require(try await run(as: Self.owner, ["preload", list]).code == 0)
        for side in ["-wal", "-shm"] {
            try #require(FileManager.default.createFile(atPath: store + side, contents: Data()))
            chown(store + side, Self.reader, Self.reader)
            chmod(store + side, 0o644)
        }

        // When the owner writes
        let prune = try await run(as: Self.owner, ["prune", "--older-than", "0s"])

        // Then the command says which file is in the way and what to do
        #expect(prune.code == 1)
        #expect(prune.stderr.contains("'\(store)-wal' belongs to user \(Self.reader) and cannot be written"),
                "\(prune.stderr)")
        #expect(prune.stderr.contains("remove the store's -wal and -shm files"), "\(prune.stderr)")
    }
}
