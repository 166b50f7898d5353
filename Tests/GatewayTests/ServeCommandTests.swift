import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport

/// The `webcache serve` executable end to end: the URL on stdout's first line, an access-log line
/// per request, a clean exit on SIGTERM, and usage errors that name the bad value.
@Suite(.timeLimit(.minutes(1)))
struct ServeCommandTests {
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("webcache")

    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "serve-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    @Test func servesUntilSIGTERMThenExitsZero() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer { request in
            .text("served \(request.path)", headers: ["Cache-Control": "max-age=60"])
        }
        try origin.start()
        defer { origin.stop() }
        // Given
        let stdout = folder.appending(path: "stdout.txt").path
        let process = try ChildProcess.spawn(
            Self.executable.path,
            ["serve", "--port", "0", "--store", folder.appending(path: "store.sqlite").path,
             "--upstream", origin.baseURL.absoluteString],
            output: .file(stdout), error: .pipe)
        let firstLine = try #require(try await Self.lines(1, of: stdout).first)
        let gateway = try #require(URL(string: firstLine))
        #expect(gateway.host == "127.0.0.1")

        // When
        var settings = CurlTransport.Configuration()
        settings.proxy = ""
        let reply = try await GatewayHarness.send(HTTPRequest(url: gateway.appending(path: "hello")),
                                                  via: try CurlTransport(configuration: settings))
        let accessLine = try await Self.lines(2, of: stdout).dropFirst().first
        process.send(SIGTERM)
        let result = await process.finish()

        // Then
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == "served /hello")
        #expect(accessLine?.hasPrefix("GET \(origin.url("/hello").absoluteString) 200 network") == true)
        #expect(result.termination == .exited(0))
        let errors = String(decoding: result.error, as: UTF8.self)
        #expect(errors.contains("stopping on signal 15"))
    }

    @Test(arguments: [
        (["--bind", "nowhere"], "'nowhere'"),
        (["--upstream", "ftp://example.com/"], "'ftp://example.com/'"),
        (["--port", "70000"], "'70000'"),
        (["--max-stale", "soon"], "'soon'"),
    ])
    func badValuesAreUsageErrorsThatNameThem(options: [String], named: String) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = try ChildProcess.spawn(
            Self.executable.path,
            ["serve", "--port", "0", "--store", folder.appending(path: "store.sqlite").path] + options,
            output: .pipe, error: .pipe)
        let result = await process.finish()
        let errors = String(decoding: result.error, as: UTF8.self)
        #expect(result.termination == .exited(64))
        #expect(errors.hasPrefix("Error: "))
        #expect(errors.contains(named))
    }

    /// The first `count` complete lines of the file at `path`, polled for at most 30 seconds
    /// (fewer if the file never gets that many).
    static func lines(_ count: Int, of path: String) async throws -> [String] {
        var lines: [String] = []
        for _ in 0..<1_500 {
            let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
            lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            if lines.count >= count { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return Array(lines.prefix(count))
    }
}
