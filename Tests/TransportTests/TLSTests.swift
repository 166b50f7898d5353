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
    private let process: Process

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificate = folder.appending(path: "cert.pem")
        try Data("hello over tls\n".utf8).write(to: folder.appending(path: "hello.txt"))
        try Self.run([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder.appending(path: "key.pem").path,
            "-out", certificate.path,
        ])
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.openssl)
        process.currentDirectoryURL = folder
        process.arguments = ["s_server", "-accept", "127.0.0.1:0", "-cert", "cert.pem", "-key", "key.pem", "-WWW"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        var found: Int?
        while found == nil {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"ACCEPT 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                found = Int(text[range].split(separator: ":").last ?? "")
            }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw TransportError(code: .networkError, message: "openssl s_server did not report its port.")
        }
        port = found
    }

    deinit {
        // s_server ignores SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    var helloURL: URL { URL(string: "https://127.0.0.1:\(port)/hello.txt")! }

    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
    }
}

@Suite(.enabled(if: TLSTestServer.isAvailable, "needs the openssl command"), .serialized)
struct TLSTests {
    @Test func certificatesAreVerifiedByDefault() async throws {
        let server = try TLSTestServer()
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
        let server = try TLSTestServer()
        var configuration = CurlTransport.Configuration()
        configuration.caCertificateFile = server.certificate.path
        let transport = try CurlTransport(configuration: configuration)
        let (response, body) = try await transport.fetch(HTTPRequest(url: server.helloURL))
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "hello over tls\n")
    }

    @Test func insecureSkipsVerification() async throws {
        let server = try TLSTestServer()
        var configuration = CurlTransport.Configuration()
        configuration.insecure = true
        let transport = try CurlTransport(configuration: configuration)
        let (response, _) = try await transport.fetch(HTTPRequest(url: server.helloURL))
        #expect(response.head.status == 200)
        #expect(response.httpVersion == "HTTP/1.0")
    }
}
