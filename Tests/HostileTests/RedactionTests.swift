import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport
import WebCache

/// Credentials never show up in errors, logs or the CLI's output.
@Suite struct RedactionTests {
    static let token = "TOKEN-4c1d-secret"
    static let cookie = "COOKIE-77e2-secret"

    private static func instanceOrigin() throws -> OriginServer {
        try startOrigin { request in
            switch request.path {
            case "/broken":
                return OriginResponse(body: .raw { socket in
                    try socket.write("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n"
                        + "Set-Cookie: late=\(RedactionTests.cookie)\r\n\r\nshort")
                })
            default:
                return OriginResponse(
                    headers: ["Cache-Control": "private, max-age=3600",
                              "Set-Cookie": "sid=\(RedactionTests.cookie); Path=/; HttpOnly"],
                    body: .bytes(Data("<html><img src=/img.png></html>".utf8)))
            }
        }
    }

    @Test func theLibraryNeverLogsTokensCookiesOrPasswords() async throws {
        let server = try Self.instanceOrigin()
        defer { server.stop() }
        let lines = Mutex<[String]>([])
        let factory = try CacheFactory()
        let cache = try factory.make(instance: server.baseURL, user: "alice", token: Self.token) {
            $0.logger = Logger(level: .trace) { level, message in lines.withLock { $0.append("\(level) \(message)") } }
        }
        _ = try await cache.data(for: WebRequest("page", headers: ["Cookie": "extra=\(Self.cookie)"]))
        _ = try await cache.data(for: WebRequest("other", headers: ["Authorization": "Bearer \(Self.token)"]))
        _ = try await cache.data(for: WebRequest("page"))
        let broken = await loadResult(cache, WebRequest("broken"))
        let withPassword = await loadResult(
            cache, WebRequest("http://user:\(Self.token)@127.0.0.1:\(server.port)/page"))
        _ = await cache.preload(["page", "broken", "http://user:\(Self.token)@127.0.0.1:\(server.port)/x"],
                                options: quickOptions())
        var texts = lines.withLock { $0 }
        for result in [broken, withPassword] {
            if case .failure(let error) = result { texts.append(error.description) }
        }
        #expect(texts.count > 3)
        for text in texts {
            #expect(!text.contains(Self.token), "\(text)")
            #expect(!text.contains(Self.cookie), "\(text)")
        }
        await cache.close()
    }

    @Test func theCommandLineNeverPrintsTokensCookiesOrPasswords() async throws {
        let server = try Self.instanceOrigin()
        defer { server.stop() }
        let home = try TemporaryFolder()
        let runner = WebcacheRunner(home: home)
        let store = home.path("store.sqlite")
        let identity = ["--instance", server.baseURL.absoluteString, "--user", "alice",
                        "--token-command", "echo \(Self.token)", "--store", store, "--log-level", "trace"]
        var outputs: [String] = []
        outputs.append(try await runner.run(["get", "page", "-i"] + identity).everything)
        outputs.append(try await runner.run(["get", "page", "-i", "--policy", "reload"] + identity).everything)
        outputs.append(try await runner.run(["get", "broken"] + identity).everything)
        outputs.append(try await runner.run(["get", server.url("plain").absoluteString, "-i", "--store", store,
                                             "-H", "Authorization: Bearer \(Self.token)",
                                             "-H", "Cookie: extra=\(Self.cookie)", "--log-level", "trace"]).everything)
        let list = try home.write(Data("page\nbroken\n".utf8), to: "urls.txt")
        // One at a time, so that later requests of a run carry the cookie the first one set.
        outputs.append(
            try await runner.run(["preload", list, "--json", "--retries", "0", "-j", "1"] + identity).everything)
        outputs.append(try await runner.run(["preload", list, "--retries", "0", "-j", "1"] + identity).everything)
        let page = server.url("page").absoluteString
        for arguments in [["inspect", page, "--json"], ["inspect", page], ["inspect", "--pages", "--json"],
                          ["verify"]] {
            outputs.append(try await runner.run(arguments + ["--store", store, "--log-level", "trace"]).everything)
        }
        #expect(outputs.contains { $0.contains("<redacted>") })
        for output in outputs {
            #expect(!output.contains(Self.token), "\(output)")
            #expect(!output.contains(Self.cookie), "\(output)")
        }
        // The session did carry both to the instance, so their absence above is not an accident.
        #expect(server.requests.contains { $0.headers["Authorization"] == "Bearer \(Self.token)" })
        #expect(server.requests.contains { $0.headers["Cookie"]?.contains(Self.cookie) == true })
    }
}
