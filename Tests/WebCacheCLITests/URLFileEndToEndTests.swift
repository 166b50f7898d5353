import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache preload` on URL files that are not plain regular files of good URLs.
@Suite(.timeLimit(.minutes(1)))
final class URLFileEndToEndTests: Sendable {
    let folder: TemporaryFolder
    let server: OriginServer
    let webcache: WebcacheRunner
    let store: String

    init() throws {
        folder = try TemporaryFolder()
        server = try TestOrigin.start()
        webcache = WebcacheRunner(home: folder)
        store = folder.path("store.sqlite")
    }

    deinit {
        server.stop()
    }

    private var instance: String { server.baseURL.absoluteString }

    @Test func reportsURLsNoConnectionCanUseByLineWithoutTryingThem() async throws {
        let lines = [
            "http://127.0.0.1:99999/", "http://bad_host!.com/", "http://[zz::1]/", "http://127.0.0.1:0/", "http://",
            "page.html",
        ]
        let list = try folder.write(Data(lines.joined(separator: "\n").utf8), to: "urls.txt")

        let result = try await webcache.run(["preload", list, "--instance", instance, "--store", store])

        #expect(result.exitCode == 1)
        let reported = result.stderr.split(separator: "\n").filter { $0.hasPrefix("webcache: \(list):") }
        #expect(reported == [
            "webcache: \(list):1: 'http://127.0.0.1:99999/' has the port 99999, which is not a number from 1 to 65535.",
            "webcache: \(list):2: 'http://bad_host!.com/' has the host 'bad_host!.com', which is not a valid host name "
                + "or IP address.",
            "webcache: \(list):3: 'http://[zz::1]/' has the host '[zz::1]', which is not a valid IPv6 address.",
            "webcache: \(list):4: 'http://127.0.0.1:0/' has the port 0, which is not a number from 1 to 65535.",
            "webcache: \(list):5: 'http://' has no host.",
        ])
        #expect(!result.stderr.contains("retrying"), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Preloaded 1 page(s)"), "\(result.stdout)")
        #expect(result.stdout.contains("5 line(s) of the URL file were skipped."), "\(result.stdout)")
    }
}
