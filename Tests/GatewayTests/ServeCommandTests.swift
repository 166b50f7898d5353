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
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", "0", "--store", folder.appending(path: "store.sqlite").path,
                             "--upstream", origin.baseURL.absoluteString]
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let reader = LineReader(handle: stdout.fileHandleForReading)
        let firstLine = try #require(await reader.nextLine())
        let gateway = try #require(URL(string: firstLine))
        #expect(gateway.host == "127.0.0.1")

        // When
        var settings = CurlTransport.Configuration()
        settings.proxy = ""
        let reply = try await GatewayHarness.send(HTTPRequest(url: gateway.appending(path: "hello")),
                                                  via: try CurlTransport(configuration: settings))
        let accessLine = await reader.nextLine()
        process.terminate()
        process.waitUntilExit()

        // Then
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == "served /hello")
        #expect(accessLine?.hasPrefix("GET \(origin.url("/hello").absoluteString) 200 network") == true)
        #expect(process.terminationStatus == 0)
        #expect(process.terminationReason == .exit)
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(errors.contains("stopping on signal 15"))
    }

    @Test(arguments: [
        (["--bind", "nowhere"], "'nowhere'"),
        (["--upstream", "ftp://example.com/"], "'ftp://example.com/'"),
        (["--port", "70000"], "'70000'"),
        (["--max-stale", "soon"], "'soon'"),
    ])
    func badValuesAreUsageErrorsThatNameThem(options: [String], named: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", "0", "--store", folder.appending(path: "store.sqlite").path] + options
        let stderr = Pipe()
        process.standardOutput = Pipe()
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 64)
        #expect(errors.hasPrefix("Error: "))
        #expect(errors.contains(named))
    }
}

/// Reads lines from a pipe on a thread of its own, so that blocking reads never hold up tasks.
final class LineReader: Sendable {
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "line-reader")

    init(handle: FileHandle) {
        self.handle = handle
    }

    /// The next line without its newline; `nil` at the end of the stream.
    func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            queue.async {
                var bytes: [UInt8] = []
                while true {
                    let data = self.handle.readData(ofLength: 1)
                    guard let byte = data.first else {
                        continuation.resume(returning: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
                        return
                    }
                    if byte == UInt8(ascii: "\n") {
                        continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
                        return
                    }
                    bytes.append(byte)
                }
            }
        }
    }
}
