import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// `-H` and `-A` through the real binary: the fields belong to the requests, so the caching rules
/// see them, and credentials among them never travel beyond where they were given for.
@Suite(.timeLimit(.minutes(5)))
final class HeaderOptionTests: Sendable {
    let folder: TemporaryFolder
    let server: OriginServer
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        server = OriginServer { request in
            let language = request.headers["Accept-Language"] ?? "any"
            let agent = request.headers["User-Agent"] ?? "none"
            return .text("\(request.path) in \(language) for \(agent)",
                         headers: ["Cache-Control": "max-age=600", "Vary": "Accept-Language, User-Agent"])
        }
        try server.start()
        webcache = WebcacheRunner(home: folder)
    }

    deinit {
        server.stop()
    }

    private func get(_ path: String, _ options: String...) async throws -> WebcacheRunner.Result {
        try await webcache.run(["get", server.url(path).absoluteString, "--store", folder.path("store.sqlite")]
            + options)
    }

    @Test func aHeaderTheResponseVariesOnSelectsTheVariant() async throws {
        let french = try await get("greeting", "-H", "Accept-Language: fr", "-A", "probe/1")
        #expect(french.stdout == "/greeting in fr for probe/1")
        let frenchAgain = try await get("greeting", "-H", "Accept-Language: fr", "-A", "probe/1")
        #expect(frenchAgain.stderr.contains("hit"), "\(frenchAgain.stderr)")

        // Without the field, the French variant is not the answer.
        let plain = try await get("greeting", "-A", "probe/1")
        #expect(plain.stdout == "/greeting in any for probe/1")
        let otherAgent = try await get("greeting", "-H", "Accept-Language: fr", "-A", "probe/2")
        #expect(otherAgent.stdout == "/greeting in fr for probe/2")
        #expect(server.requestCount == 3)
    }

    /// `get -H` credentials go to the instance only, as every other command's do: to another origin
    /// neither field is sent, and without an instance they are refused.
    @Test func credentialsGivenToGetGoToTheInstanceOnly() async throws {
        let origin = OriginServer { request in
            .text("auth=\(request.headers["Authorization"] ?? "none") cookie=\(request.headers["Cookie"] ?? "none")",
                  headers: ["Cache-Control": "no-store"])
        }
        try origin.start()
        defer { origin.stop() }
        func get(instance: URL?) async throws -> WebcacheRunner.Result {
            try await webcache.run(
                ["get", origin.url("page").absoluteString, "--store", folder.path("store.sqlite"),
                 "-H", "Authorization: Bearer secret-token", "-H", "Cookie: c=secret-cookie"]
                    + (instance.map { ["--instance", $0.absoluteString] } ?? []))
        }

        let elsewhere = try await get(instance: server.baseURL)
        #expect(elsewhere.exitCode == 0, "\(elsewhere.stderr)")
        #expect(elsewhere.stdout == "auth=none cookie=none")
        let atTheInstance = try await get(instance: origin.baseURL)
        #expect(atTheInstance.stdout == "auth=Bearer secret-token cookie=c=secret-cookie")
        let withoutInstance = try await get(instance: nil)
        #expect(withoutInstance.exitCode == 64)
        #expect(withoutInstance.stderr.hasPrefix("Error: -H 'Authorization: …' needs --instance <url>"),
                "\(withoutInstance.stderr)")
        #expect(!withoutInstance.everything.contains("secret-token"))
        #expect(origin.requestCount == 2)
    }

    @Test func credentialsForEveryRequestOfAPreloadNeedAnInstance() async throws {
        let urls = try folder.write(Data("\(server.url("page").absoluteString)\n".utf8), to: "urls.txt")

        let result = try await webcache.run(
            ["preload", urls, "--store", folder.path("store.sqlite"), "-H", "Authorization: Bearer secret-token"])

        #expect(result.exitCode == 64)
        #expect(result.stderr.hasPrefix("Error: -H 'Authorization: …' needs --instance <url>"), "\(result.stderr)")
        #expect(!result.everything.contains("secret-token"))
        #expect(server.requestCount == 0)
    }
}
