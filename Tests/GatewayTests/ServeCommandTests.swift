import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCacheTestSupport

/// The `webcache serve` executable end to end: the URL on stdout's first line, an access-log line
/// per request, a clean exit on SIGTERM, and usage errors that name the bad value.
@Suite(.timeLimit(.minutes(5)))
struct ServeCommandTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "serve-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Starts `webcache serve` in front of `origin` with `options` added, its standard output in a
    /// file; returns the process, that file and the gateway's URL (the file's first line).
    private func startGateway(before origin: OriginServer, _ options: [String] = []) async throws
        -> (process: ChildProcess, stdout: OutputFile, url: URL)
    {
        let stdout = OutputFile(path: folder.appending(path: "stdout.txt").path)
        let process = try ChildProcess.spawn(
            try BuiltProducts.executable(named: "webcache").path,
            ["serve", "--port", "0", "--store", folder.appending(path: "store.sqlite").path,
             "--upstream", origin.baseURL.absoluteString] + options,
            output: .file(stdout.path), error: .pipe)
        let firstLine = try #require(try await stdout.lines(1).first)
        return (process, stdout, try #require(URL(string: firstLine)))
    }

    /// A client that sends straight to the gateway, through no proxy of the environment.
    private func directTransport() throws -> CurlTransport {
        var settings = CurlTransport.Configuration()
        settings.proxy = ""
        return try CurlTransport(configuration: settings)
    }

    @Test func servesUntilSIGTERMThenExitsZero() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer { request in
            .text("served \(request.path)", headers: ["Cache-Control": "max-age=60"])
        }
        try origin.start()
        defer { origin.stop() }
        // Given
        let (process, stdout, gateway) = try await startGateway(before: origin)
        #expect(gateway.host == "127.0.0.1")

        // When
        let reply = try await GatewayHarness.send(HTTPRequest(url: gateway.appending(path: "hello")),
                                                  via: try directTransport())
        let accessLine = try await stdout.lines(2).dropFirst().first
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

    /// `--max-request-head` sets the largest request head accepted: a head of 20,000 bytes is
    /// answered 431 by default and served with the limit at 24,000.
    @Test func theRequestHeadLimitIsAnOption() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer { request in .text("served \(request.path)") }
        try origin.start()
        defer { origin.stop() }
        let start = "GET /large HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Filler: "
        let head = start + String(repeating: "a", count: 20_000 - start.utf8.count - 4) + "\r\n\r\n"
        var replies: [String] = []
        for options in [[], ["--max-request-head", "24000"]] {
            let (process, _, gateway) = try await startGateway(before: origin, options)
            let port = try #require(gateway.port)
            replies.append(try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: UInt16(port), head))
            process.send(SIGTERM)
            #expect(await process.finish().termination == .exited(0))
        }
        #expect(replies.first?.hasPrefix("HTTP/1.1 431") == true, "\(replies.first?.prefix(200) ?? "")")
        #expect(replies.first?.contains("is 20000 bytes, more than the gateway accepts (16384 bytes)") == true)
        #expect(replies.last?.hasPrefix("HTTP/1.1 200") == true, "\(replies.last?.prefix(200) ?? "")")
        #expect(replies.last?.hasSuffix("served /large") == true)
    }

    @Test func accessLogLinesWaitInMemoryAndAreAllWrittenWhenTheGatewayStops() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer { request in
            .text("page \(request.path)", headers: ["Cache-Control": "max-age=600"])
        }
        try origin.start()
        defer { origin.stop() }
        // Given a gateway whose access-log lines wait up to an hour to be written with others
        let (process, stdout, gateway) = try await startGateway(before: origin, ["--log-flush", "3600s"])
        let firstLine = gateway.absoluteString
        let transport = try directTransport()

        // When 40 requests are answered (20 pages, each stored, then a hit), then the gateway stops
        var expected: [String] = []
        for round in ["network", "hit"] {
            for page in 0..<20 {
                let reply = try await GatewayHarness.send(HTTPRequest(url: gateway.appending(path: "p\(page)")),
                                                          via: transport)
                #expect(reply.status == 200)
                let url = origin.url("/p\(page)").absoluteString
                expected.append("GET \(url) 200 \(round) \("page /p\(page)".utf8.count)")
            }
        }
        let linesWhileServing = stdout.lines
        process.send(SIGTERM)
        let result = await process.finish()

        // Then none was written while it served, and every one once it stopped: each line is made
        // when its response ends, which on two event loops may come after the next request's
        #expect(linesWhileServing == [firstLine])
        #expect(result.termination == .exited(0))
        #expect(stdout.lines.first == firstLine)
        #expect(stdout.lines.dropFirst().sorted() == expected.sorted())
    }

    @Test func hitCountsReachTheStoreWhileTheGatewayRuns() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer { _ in .text("counted", headers: ["Cache-Control": "max-age=600"]) }
        try origin.start()
        defer { origin.stop() }
        let store = folder.appending(path: "store.sqlite").path
        let webcache = try BuiltProducts.executable(named: "webcache").path
        // Given a gateway that writes its hit counts every 50 ms
        let (process, _, gateway) = try await startGateway(before: origin, ["--flush-hits", "0.05s"])
        defer { process.send(SIGKILL) }
        let transport = try directTransport()

        // When one request stores the page and three more are hits
        for _ in 0..<4 {
            let reply = try await GatewayHarness.send(HTTPRequest(url: gateway.appending(path: "page")), via: transport)
            #expect(reply.status == 200)
        }

        // Then inspect sees the three hits while the gateway still runs (polled: the flush is periodic)
        var hits: Int?
        for _ in 0..<600 where hits != 3 {
            let inspect = try ChildProcess.spawn(
                webcache, ["inspect", origin.url("/page").absoluteString, "--json", "--store", store],
                output: .pipe, error: .pipe)
            let result = await inspect.finish()
            let object = try? JSONSerialization.jsonObject(with: result.output) as? [String: Any]
            let entries = object?["entries"] as? [[String: Any]]
            hits = entries?.first?["hits"] as? Int
            if hits != 3 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(hits == 3)
        #expect(origin.requestCount == 1)
    }

    @Test(arguments: [
        (["--bind", "nowhere"], "'nowhere'"),
        (["--upstream", "ftp://example.com/"], "'ftp://example.com/'"),
        (["--port", "70000"], "'70000'"),
        (["--max-stale", "soon"], "'soon'"),
        (["--flush-hits", "often"], "'often'"),
        (["--log-flush", "2 days"], "'2 days'"),
        (["--memory-cache", "lots"], "'lots'"),
        (["--max-request-head", "lots"], "'lots'"),
        (["--max-request-head", "1000"], "'1000'"),
        (["--max-request-head", "2000000"], "'2000000'"),
    ])
    func badValuesAreUsageErrorsThatNameThem(options: [String], named: String) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = try ChildProcess.spawn(
            try BuiltProducts.executable(named: "webcache").path,
            ["serve", "--port", "0", "--store", folder.appending(path: "store.sqlite").path] + options,
            output: .pipe, error: .pipe)
        let result = await process.finish()
        let errors = String(decoding: result.error, as: UTF8.self)
        #expect(result.termination == .exited(64))
        #expect(errors.hasPrefix("Error: "))
        #expect(errors.contains(named))
    }
}
