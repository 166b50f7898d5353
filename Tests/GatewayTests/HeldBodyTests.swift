import Foundation
import Glibc
import Testing
import WebCacheTestSupport

@testable import Gateway

/// A kept body (``HeldBody``): in plain memory, or in a file without a name whose descriptors each
/// response sends from and closes, holding the bytes it was made from.
struct HeldBodyTests {
    private static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    }

    private struct Refused: Error {}

    /// A body of `bytes` in a file, given to it `piece` bytes at a time; `give` may change what is
    /// given: the bytes and whether to go on.
    private static func inFile(
        _ bytes: [UInt8], in files: BodyFiles, piece: Int = 100_000,
        give: (_ offset: Int, _ piece: ArraySlice<UInt8>) throws -> ArraySlice<UInt8> = { $1 }
    ) -> HeldBody? {
        var offset = 0
        return HeldBody.inFile(count: bytes.count, in: files) { buffer in
            let next = try give(offset, bytes[offset..<min(bytes.count, offset + piece)])
            next.withUnsafeBytes { buffer.copyMemory(from: $0) }
            offset += next.count
            return next.count
        }
    }

    private static func contents(_ body: HeldBody) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: body.start, count: body.count))
    }

    /// The bytes read from `file` from its start, up to `limit`; then closes it.
    private static func read(closing file: Int32, limit: Int) -> [UInt8] {
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: limit)
        var done = 0
        while done < limit {
            let got = bytes.withUnsafeMutableBytes { pread(file, $0.baseAddress! + done, limit - done, off_t(done)) }
            guard got > 0 else { break }
            done += got
        }
        return Array(bytes[..<done])
    }

    private static func withFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "held-body-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder.path)
    }

    @Test func aBodyInMemoryHasNoFile() throws {
        let bytes = Self.bytes(399)
        let memory = try #require(malloc(bytes.count))
        memory.copyMemory(from: bytes, byteCount: bytes.count)
        let body = HeldBody(taking: memory, count: bytes.count)
        #expect(!body.isInFile)
        #expect(body.fileForResponse() == nil)
        #expect(Self.contents(body) == bytes)
    }

    @Test(arguments: [HeldBody.fileThreshold + 1, 3 * HeldBody.fileThreshold + 5])
    func aBodyInAFileIsReadWholeThroughEachResponsesOwnDescriptor(count: Int) throws {
        try Self.withFolder { folder in
            let bytes = Self.bytes(count)
            let files = BodyFiles(folder: folder)
            let body = try #require(Self.inFile(bytes, in: files))
            #expect(body.isInFile)
            #expect(files.count == 1)
            #expect(body.count == count)
            #expect(Self.contents(body) == bytes)
            // The file has no name.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

            let first = try #require(body.fileForResponse())
            let second = try #require(body.fileForResponse())
            #expect(first != second)
            // Each is the whole body, and closing one, as a finished response does, leaves the others.
            #expect(Self.read(closing: first, limit: count + 1) == bytes)
            #expect(Self.read(closing: second, limit: count + 1) == bytes)
            #expect(Self.contents(body) == bytes)
            #expect(Self.read(closing: try #require(body.fileForResponse()), limit: count + 1) == bytes)
        }
    }

    @Test func aBodyWhoseCopyFailsOrGivesOtherThanItsSizeIsNotMade() throws {
        try Self.withFolder { folder in
            let bytes = Self.bytes(3 * HeldBody.fileThreshold)
            let files = BodyFiles(folder: folder)
            // The store's copy throws (a damaged or deleted body) after some pieces.
            #expect(Self.inFile(bytes, in: files) { offset, piece in
                if offset >= 300_000 { throw Refused() }
                return piece
            } == nil)
            // It ends early, or gives more than the body's size.
            #expect(Self.inFile(bytes, in: files) { offset, piece in offset >= 500_000 ? [] : piece } == nil)
            #expect(Self.inFile(bytes, in: files) { _, piece in piece.isEmpty ? [1] : piece } == nil)
            #expect(files.count == 0)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(names.isEmpty)
        }
    }

    @Test func noFileIsMadeInAFolderThatIsNotThere() throws {
        try Self.withFolder { folder in
            let bytes = Self.bytes(HeldBody.fileThreshold + 1)
            let files = BodyFiles(folder: folder + "/not-there")
            #expect(Self.inFile(bytes, in: files) == nil)
            #expect(!FileManager.default.fileExists(atPath: files.folder))
            #expect(files.count == 0, "a file not made is not counted")
        }
    }

    @Test(.enabled(if: Mounts.areAvailable, "mounting a small file system needs root"))
    func aBodyThatDoesNotFitOnTheDiskStaysOutOfAFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "held-body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Mounts.with { mounts in
            // Room for one body just over the threshold, not for one twice its size.
            try await mounts.tmpfs(at: folder.path, size: "\(HeldBody.fileThreshold / 1024 * 3 / 2)k")
            let files = BodyFiles(folder: folder.path)
            let bytes = Self.bytes(2 * HeldBody.fileThreshold)
            #expect(Self.inFile(bytes, in: files) == nil)
            #expect(files.count == 0)
            // What was written is given back: a body that fits is kept in a file there.
            let fits = Self.bytes(HeldBody.fileThreshold + 1)
            let body = try #require(Self.inFile(fits, in: files))
            #expect(Self.contents(body) == fits)
        }
    }

    @Test func noMoreFilesAreHeldThanTheLimitAllows() throws {
        try Self.withFolder { folder in
            let bytes = Self.bytes(HeldBody.fileThreshold + 1)
            let files = BodyFiles(folder: folder, limit: 2)
            func make() -> HeldBody? { Self.inFile(bytes, in: files) }
            var first = make()
            let second = make()
            #expect(first != nil && second != nil)
            #expect(make() == nil, "a third file is over the limit")
            #expect(files.count == 2)

            first = nil  // Freed: its file is closed and no longer counted.
            #expect(files.count == 1)
            let third = try #require(make())
            #expect(Self.contents(third) == bytes)
            #expect(files.count == 2)
            _ = (first, second)
        }
    }
}
