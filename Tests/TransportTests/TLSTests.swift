import ChildProcess
import Foundation
import HTTPCore
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Transport

/// A throw-away TLS server: `openssl s_server -WWW` with a fresh self-signed certificate for
/// 127.0.0.1, serving files of a temporary folder.
final class TLSTestServer {
    static let openssl = "/usr/bin/openssl"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    let folder: URL
    let certificate: URL
    let port: Int
    private let process: ChildProcess

    init() async throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificate = folder.appending(path: "cert.pem")
        try Data("hello over tls\n".utf8).write(to: folder.appending(path: "hello.txt"))
        try await Self.run([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder.appending(path: "key.pem").path,
            "-out", certificate.path,
        ])
        // -WWW serves files of the working directory; the shell moves there, then becomes openssl.
        let output = folder.appending(path: "s_server.out").path
        process = try ChildProcess.spawn(
            "/bin/sh",
            ["-c", "cd \"$1\" && exec \"$0\" s_server -accept 127.0.0.1:0 -cert cert.pem -key key.pem -WWW",
             Self.openssl, folder.path],
            output: .file(output), error: .null)
        // s_server prints its port once it listens; poll its output for at most 30 seconds.
        var found: Int?
        for _ in 0..<1_500 {
            let text = String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self)
            if let range = text.range(of: #"ACCEPT 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                found = Int(text[range].split(separator: ":").last ?? "")
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard let found else {
            process.send(SIGKILL)
            _ = await process.finish()
            throw TransportError(code: .networkError, message: "openssl s_server did not report its port.")
        }
        port = found
    }

    deinit {
        // s_server ignores SIGTERM.
        process.send(SIGKILL)
        _ = process.finishBlocking()
        try? FileManager.default.removeItem(at: folder)
    }

    var helloURL: URL { URL(string: "https://127.0.0.1:\(port)/hello.txt")! }

    private static func run(_ arguments: [String]) async throws {
        let result = try await ChildProcess.spawn(openssl, arguments, output: .null, error: .pipe).finish()
        guard result.termination.succeeded else {
            let message = "openssl \(arguments.first ?? "") failed: \(String(decoding: result.error, as: UTF8.self))"
            throw TransportError(code: .networkError, message: message)
        }
    }
}

@Suite(.enabled(if: TLSTestServer.isAvailable, "needs the openssl command"), .serialized)
struct TLSTests {
    @Test func certificatesAreVerifiedByDefault() async throws {
        let server = try await TLSTestServer()
        let transport = try CurlTransport()
        do {
            _ = try await transport.send(HTTPRequest(url: server.helloURL))
            Issue.record("A self-signed certificate was accepted.")
        } catch let error as TransportError {
            #expect(error.code == .tls)
            #expect(error.message.contains(server.helloURL.absoluteString))
        }
    }

    @Test func aGivenCACertificateIsTrusted() async throws {
        let server = try await TLSTestServer()
        var configuration = CurlTransport.Configuration()
        configuration.caCertificateFile = server.certificate.path
        let transport = try CurlTransport(configuration: configuration)
        let (response, body) = try await transport.fetch(HTTPRequest(url: server.helloURL))
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "hello over tls\n")
    }

    @Test func insecureSkipsVerification() async throws {
        let server = try await TLSTestServer()
        var configuration = CurlTransport.Configuration()
        configuration.insecure = true
        let transport = try CurlTransport(configuration: configuration)
        let (response, _) = try await transport.fetch(HTTPRequest(url: server.helloURL))
        #expect(response.head.status == 200)
        #expect(response.httpVersion == "HTTP/1.0")
    }
}
