import ChildProcess
import Foundation
import Synchronization
import Testing
import WebCacheTestSupport

/// A name whose DNS answer changes between two lookups (DNS rebinding) cannot make a preload reach a
/// private address, scanned or rendered. In a network namespace of the test's own, a DNS server
/// answers each `.test` name with a public address the first time and with 127.0.0.1 after; the
/// page is served on that public address, and names a file on 127.0.0.1 directly and through such
/// a name.
@Suite(.enabled(if: NetworkNamespace.canCreate, "a network namespace needs root and iproute2"))
struct DNSRebindingTests {
    @Test func aPageIsJudgedByTheAddressItCameFromAndEachConnectionByTheAddressItGoesTo() async throws {
        try await Self.withRebindingNames { site in
            let page = """
                <!DOCTYPE html><title>Public</title>
                <img src="http://127.0.0.1:\(site.privatePort)/secret.png">
                <img src="http://rebind-target.test:\(site.privatePort)/secret.png">
                """
            let (termination, printed) = try await site.preload(page: page, options: [])
            #expect(termination == .exited(1), "\(printed)")
            #expect(printed.contains("Preloaded 1 page(s)"), "\(printed)")
        }
    }

    @Test(.enabled(if: Self.chromiumIsInstalled, "Chromium is not installed; run scripts/install-deps.sh chromium"))
    func aRenderedPageIsHeldToTheSameRules() async throws {
        try await Self.withRebindingNames { site in
            let page = """
                <!DOCTYPE html><title>Public</title>
                <img src="http://127.0.0.1:\(site.privatePort)/secret.png">
                <img src="http://rebind-target.test:\(site.privatePort)/secret.png">
                <script>fetch("http://127.0.0.1:\(site.privatePort)/secret.json").catch(() => {});</script>
                """
            let (_, printed) = try await site.preload(page: page, options: ["--render", "--settle", "200ms"])
            #expect(printed.contains("Rendered 1 page(s)") || printed.contains("Preloaded 1 page(s)"), "\(printed)")
            #expect(printed.contains("http://127.0.0.1:\(site.privatePort)/secret.json"), "\(printed)")
        }
    }

    static var chromiumIsInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    }

    /// Runs `body` with the namespace, its DNS server and both servers started, then checks what
    /// every case must show: the direct address was refused before the request, the rebinding
    /// name at the connection, and the private server got no request.
    private static func withRebindingNames(_ body: (RebindingSite) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let namespace = try await NetworkNamespace()
        let started = StartedProcesses()
        var failure: (any Error)?
        do {
            let site = try await RebindingSite.start(in: namespace, folder: folder, started: started)
            try await body(site)
            let printed = site.printed
            #expect(printed.contains("http://127.0.0.1:\(site.privatePort)/secret.png: a page on a public address "
                                     + "may not reach the private address of 127.0.0.1"), "\(printed)")
            // The target's name answered public to the check and 127.0.0.1 to the connection.
            #expect(printed.contains("its host resolved to 127.0.0.1"), "\(printed)")
            let answers = site.dnsAnswers
            #expect(answers.hasPrefix("rebind-page.test \(NetworkNamespace.publicAddress)\n"), "\(answers)")
            #expect(answers.contains(
                "rebind-target.test \(NetworkNamespace.publicAddress)\nrebind-target.test 127.0.0.1"), "\(answers)")
            #expect(site.privateRequests.isEmpty, "the private server was reached: \(site.privateRequests)")
        } catch {
            failure = error
        }
        await started.stopAll()
        await namespace.remove()
        if let failure { throw failure }
    }
}

/// The DNS server and the two servers of one test, inside its namespace.
private struct RebindingSite {
    let namespace: NetworkNamespace
    let folder: TemporaryFolder
    let environment: [String: String]
    let privatePort: Int
    let publicPort: Int

    static func start(
        in namespace: NetworkNamespace, folder: TemporaryFolder, started: StartedProcesses
    ) async throws -> RebindingSite {
        let environment = ["PATH": WebcacheRunner.inheritedSearchPath, "HOME": folder.url.path, "LANG": "C.UTF-8"]
        func start(_ name: String, _ executable: String, _ arguments: [String]) throws -> OutputFile {
            let output = OutputFile(path: folder.path("\(name).out"))
            started.add(try namespace.start(
                executable, arguments, environment: environment, output: output,
                error: OutputFile(path: folder.path("\(name).err"))))
            return output
        }
        let script = Repository.root.appending(path: "Tests/HostileTests/Fixtures/rebinding-dns.py").path
        let dns = try start("dns", "/usr/bin/env", [
            "python3", script, "127.0.0.1", NetworkNamespace.publicAddress, folder.path("dns.log"),
        ])
        try #require(try await dns.lines(1) == ["ready"], "the DNS server did not start: \(folder.path("dns.err"))")

        // The private server: on 127.0.0.1, logging every request it gets.
        let origin = try BuiltProducts.executable(named: "webcache-origin").path
        let privateRoot = folder.path("private")
        try FileManager.default.createDirectory(atPath: privateRoot, withIntermediateDirectories: true)
        try Data("private".utf8).write(to: URL(fileURLWithPath: "\(privateRoot)/secret.png"))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(privateRoot)/secret.json"))
        let privateLine = try await start(
            "private", origin, ["--root", privateRoot, "--log", folder.path("private.log")]).lines(1).first
        let privateURL = try #require(URL(string: privateLine ?? ""), "the private server did not start")

        // The public server, which serves the page each case writes.
        try FileManager.default.createDirectory(atPath: folder.path("public"), withIntermediateDirectories: true)
        let publicLine = try await start(
            "public", origin, ["--address", NetworkNamespace.publicAddress, "--root", folder.path("public")]
        ).lines(1).first
        let publicURL = try #require(URL(string: publicLine ?? ""), "the public server did not start")
        return RebindingSite(
            namespace: namespace, folder: folder, environment: environment,
            privatePort: try #require(privateURL.port), publicPort: try #require(publicURL.port))
    }

    /// Serves `page` on the public server and preloads it through a rebinding name with `options`.
    func preload(page: String, options: [String]) async throws -> (ChildProcess.Termination, String) {
        try Data(page.utf8).write(to: URL(fileURLWithPath: folder.path("public/page.html")))
        let urls = try folder.write(Data("http://rebind-page.test:\(publicPort)/page.html\n".utf8), to: "urls.txt")
        let output = OutputFile(path: folder.path("preload.out"))
        let errors = OutputFile(path: folder.path("preload.err"))
        let preload = try namespace.start(
            try BuiltProducts.executable(named: "webcache").path,
            ["preload", "--store", folder.path("store.sqlite")] + options + [urls],
            environment: environment, output: output, error: errors)
        let termination = await preload.finish().termination
        return (termination, printed)
    }

    /// What the preload printed, both outputs.
    var printed: String {
        let output = OutputFile(path: folder.path("preload.out")).lines + OutputFile(path: folder.path("preload.err")).lines
        return output.joined(separator: "\n")
    }

    /// The DNS server's answers, a `NAME ADDRESS` line each, in order.
    var dnsAnswers: String {
        String(decoding: FileManager.default.contents(atPath: folder.path("dns.log")) ?? Data(), as: UTF8.self)
    }

    /// The requests the private server got.
    var privateRequests: String {
        String(decoding: FileManager.default.contents(atPath: folder.path("private.log")) ?? Data(), as: UTF8.self)
    }
}

/// The processes a test started, stopped together at its end.
private final class StartedProcesses: Sendable {
    private let processes = Mutex<[ChildProcess]>([])

    func add(_ process: ChildProcess) {
        processes.withLock { $0.append(process) }
    }

    func stopAll() async {
        for process in processes.withLock({ $0 }) {
            process.send(SIGTERM)
            _ = await process.finish()
        }
    }
}
