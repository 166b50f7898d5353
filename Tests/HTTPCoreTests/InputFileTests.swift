import Foundation
import Testing
import WebCacheTestSupport

@testable import HTTPCore

/// Files read with plain reads: whatever can be opened reads, and what cannot says why in words.
struct InputFileTests {
    private let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    @Test func readsARegularFileAndDevNull() throws {
        let path = try folder.write(Data("one\ntwo\n".utf8), to: "list.txt")
        #expect(try InputFile.read(path: path) == Data("one\ntwo\n".utf8))
        #expect(try InputFile.read(path: "/dev/null").isEmpty)
    }

    @Test func readsAPipeToItsEnd() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let text = String(repeating: "https://a.test/\n", count: 10_000)  // more than a pipe holds
        let writer = Thread { [end = ends[1]] in
            _ = Data(text.utf8).withUnsafeBytes { write(end, $0.baseAddress, $0.count) }
            close(end)
        }
        writer.start()
        defer { close(ends[0]) }

        let data = try InputFile.read(descriptor: ends[0], name: "<stdin>")

        #expect(data == Data(text.utf8))
    }

    @Test func stopsAfterTheChunkThatIsEnough() throws {
        let path = try folder.write(Data(repeating: 0, count: 1 << 20), to: "zeros")
        let data = try InputFile.read(path: path, until: { $0.contains(0) })
        #expect(data.count == InputFile.chunkSize)
    }

    @Test func saysInWordsWhyAFileCannotBeRead() throws {
        let missing = folder.path("absent")
        let underAFile = try folder.write(Data("x".utf8), to: "plain") + "/list.txt"
        for (path, reason) in [
            (missing, "does not exist"), (folder.url.path, "is a directory"),
            (underAFile, "cannot be read: Not a directory"),
        ] {
            let error = #expect(throws: InputFile.Error.self) { try InputFile.read(path: path) }
            #expect(error == InputFile.Error(path: path, reason: reason))
        }
        #expect(
            InputFile.Error(path: "urls.txt", reason: "does not exist").sentence(calling: "URL file")
                == "The URL file 'urls.txt' does not exist.")
    }

    @Test func aDirectoryOnADescriptorIsNamed() throws {
        let descriptor = open(folder.url.path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let error = #expect(throws: InputFile.Error.self) {
            try InputFile.read(descriptor: descriptor, name: "<stdin>")
        }
        #expect(error?.description == "The file '<stdin>' is a directory.")
    }

    @Test func checksAFileWithoutOpeningIt() throws {
        try InputFile.checkReadable(path: try folder.write(Data(), to: "ca.pem"))
        // Opening a FIFO that has no writer would wait for one.
        let fifo = folder.path("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        try InputFile.checkReadable(path: fifo)
        let missing = folder.path("absent.pem")
        #expect(throws: InputFile.Error(path: missing, reason: "does not exist")) {
            try InputFile.checkReadable(path: missing)
        }
        #expect(throws: InputFile.Error(path: folder.url.path, reason: "is a directory")) {
            try InputFile.checkReadable(path: folder.url.path)
        }
    }
}
