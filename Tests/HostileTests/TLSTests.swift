import CacheStore
import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCache
import WebCacheTestSupport

/// TLS certificates are verified unless the configuration says `insecure`.
@Suite struct TLSTests {
    /// A TLS server with a self-signed certificate (`openssl s_server`), or `nil` without `openssl`.
    final class SelfSignedServer: Sendable {
        let process: ChildProcess
        let port: UInt16
        let folder: TemporaryFolder

        init?() throws {
            let openssl = "/usr/bin/openssl"
            guard FileManager.default.isExecutableFile(atPath: openssl) else { return nil }
            folder = try TemporaryFolder()
            let key = folder.path("key.pem"), certificate = folder.path("cert.pem")
            let make = try ChildProcess.spawn(
                openssl,
                ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                 "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                output: .null, error: .null)
            guard make.finishBlocking().termination == .exited(0) else { return nil }
            port = try Self.freePort()
            process = try ChildProcess.spawn(
                openssl,
                ["s_server", "-quiet", "-cert", certificate, "-key", key, "-accept", "127.0.0.1:\(port)", "-www"],
                input: .null, output: .null, error: .null)
            guard Self.waitUntilListening(port) else {
                process.send(SIGKILL)
                _ = process.finishBlocking()
                return nil
            }
        }

        deinit {
            // SIGKILL, as the server may have been left to ignore SIGTERM.
            process.send(SIGKILL)
            _ = process.finishBlocking()
        }

        private static func freePort() throws -> UInt16 {
            let (descriptor, port) = try LoopbackSocket.make()
            close(descriptor)
            return port
        }

        /// Polls with a bounded number of attempts until the server accepts a connection.
        private static func waitUntilListening(_ port: UInt16) -> Bool {
            for _ in 0..<100 {
                if RawClient.canConnect(port: port) { return true }
                usleep(50_000)
            }
            return false
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
                   "openssl is needed to make a self-signed certificate"))
    func aSelfSignedCertificateFailsWithATLSErrorNamingTheURL() async throws {
        let server = try #require(try SelfSignedServer(), "openssl could not start a TLS server")
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let factory = try CacheFactory()
        let strict = try factory.make()
        let result = await loadResult(strict, WebRequest(url: url))
        guard case .failure(let error) = result else {
            Issue.record("a self-signed certificate was accepted")
            return
        }
        #expect(error.code == .network)
        #expect(error.message.contains(url.absoluteString), "\(error)")
        #expect((error.cause as? TransportError)?.code == .tls, "\(error)")
        #expect(try strict.store.totals().entryCount == 0)
        await strict.close()

        // The same server is reachable when verification is explicitly turned off.
        let lax = try factory.make { $0.transportConfiguration.insecure = true }
        let response = try await lax.data(for: WebRequest(url: url))
        #expect(response.status == 200)
        await lax.close()
    }
}
