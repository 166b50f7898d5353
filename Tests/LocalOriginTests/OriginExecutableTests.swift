import ChildProcess
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import WebCacheTestSupport

/// The `webcache-origin` executable that scripts and tests start.
@Suite(.timeLimit(.minutes(1)))
struct OriginExecutableTests {
    /// `--log FILE` appends, as its help says: what the file held stays, and each request adds a line.
    @Test func theRequestLogIsAppendedTo() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: folder.path("page.txt")))
        let log = folder.path("requests.log")
        try Data("GET /earlier\n".utf8).write(to: URL(fileURLWithPath: log))
        let output = OutputFile(path: folder.path("origin.out"))
        let origin = try ChildProcess.spawn(
            try BuiltProducts.executable(named: "webcache-origin").path, ["--root", folder.url.path, "--log", log],
            output: .file(output.path), error: .pipe)
        let base = try #require(URL(string: try await output.lines(1).first ?? ""), "the origin did not start")

        let port = UInt16(try #require(base.port))
        let reply = try await RawClient.exchange(
            port: port, "GET /page.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        origin.send(SIGTERM)
        _ = await origin.finish()

        #expect(reply.body == "hello")
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "GET /earlier\nGET /page.txt\n")
    }
}
