import ChildProcess
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// nginx in front of a local origin, answering over HTTP/2 with TLS (ALPN) on a port of 127.0.0.1,
/// with a fresh self-signed certificate for `127.0.0.1` and `localhost`, passing the `Host` it was
/// asked for on, and logging each request's protocol: an HTTP/2 server for the tests, which the
/// local origin is not.
public final class HTTP2Proxy: Sendable {
    public static let nginx = "/usr/sbin/nginx"
    public static let openssl = "/usr/bin/openssl"
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: nginx) && FileManager.default.isExecutableFile(atPath: openssl)
    }

    /// nginx or openssl failed.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// One request as nginx logged it.
    public struct Exchange: Sendable {
        /// As the client spoke it, such as `HTTP/2.0`.
        public var httpVersion: String
        public var host: String
    }

    private let folder: TemporaryFolder
    /// The PEM certificate to trust.
    public let certificatePath: String
    public let port: Int
    private let process: ChildProcess

    /// Starts nginx proxying to `origin` (an `http://127.0.0.1:port/` base URL).
    public init(origin: URL) async throws {
        folder = try TemporaryFolder(prefix: "http2-proxy")
        certificatePath = folder.path("cert.pem")
        try await Self.run(Self.openssl, [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", folder.path("key.pem"),
            "-out", certificatePath,
        ])
        // nginx cannot listen on port 0 and tell which it got: a free port is taken, released and
        // given to nginx, and if another process takes it first, nginx fails and another is tried.
        for _ in 0..<5 {
            let (descriptor, port) = try LoopbackSocket.make()
            close(descriptor)
            try Self.configuration(folder: folder, port: Int(port), origin: origin)
                .write(toFile: folder.path("nginx.conf"), atomically: true, encoding: .utf8)
            let process = try ChildProcess.spawn(
                Self.nginx, ["-p", folder.url.path, "-c", folder.path("nginx.conf"), "-e", folder.path("error.log")],
                output: .null, error: .null)
            if await Self.accepts(port: port, while: process) {
                self.port = Int(port)
                self.process = process
                return
            }
            process.send(SIGKILL)
            _ = await process.finish()
        }
        let log = (try? String(contentsOfFile: folder.path("error.log"), encoding: .utf8)) ?? ""
        folder.remove()
        throw Failure(message: "nginx did not start: \(log)")
    }

    deinit {
        // TERM: a fast shutdown, which does not wait for idle keep-alive connections.
        process.send(SIGTERM)
        _ = process.finishBlocking()
        folder.remove()
    }

    /// The URL of `path` on this proxy, under `host` (`127.0.0.1` or `localhost`).
    public func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)/\(path)")!
    }

    /// The requests logged so far.
    public func exchanges() -> [Exchange] {
        let text = (try? String(contentsOfFile: folder.path("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 2 else { return nil }
            return Exchange(httpVersion: String(fields[0]), host: String(fields[1]))
        }
    }

    private static func configuration(folder: TemporaryFolder, port: Int, origin: URL) -> String {
        let base = folder.url.path
        // Without the trailing slash, nginx passes each request's path on as it came.
        let address = origin.absoluteString
        let upstream = address.hasSuffix("/") ? String(address.dropLast()) : address
        return """
            daemon off;
            master_process off;
            pid \(base)/nginx.pid;
            error_log \(base)/error.log;
            events { worker_connections 256; }
            http {
                client_body_temp_path \(base)/body;
                proxy_temp_path \(base)/proxy;
                fastcgi_temp_path \(base)/fastcgi;
                uwsgi_temp_path \(base)/uwsgi;
                scgi_temp_path \(base)/scgi;
                log_format exchanges '$server_protocol $host';
                access_log \(base)/access.log exchanges;
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(base)/cert.pem;
                    ssl_certificate_key \(base)/key.pem;
                    location / {
                        proxy_pass \(upstream);
                        proxy_http_version 1.1;
                        proxy_set_header Host $host;
                        proxy_set_header Connection "";
                    }
                }
            }

            """
    }

    /// Whether a connection to `port` succeeds within ten seconds, while `process` runs.
    private static func accepts(port: UInt16, while process: ChildProcess) async -> Bool {
        for _ in 0..<500 {
            // Exited (for one, because the port was taken): the child is left for `finish` to reap.
            var info = siginfo_t()
            if waitid(P_PID, id_t(process.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
                info._sifields._sigchld.si_pid != 0
            {
                return false
            }
            if RawClient.canConnect(port: port) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    private static func run(_ tool: String, _ arguments: [String]) async throws {
        let result = try await ChildProcess.spawn(tool, arguments, output: .null, error: .pipe).finish()
        guard result.termination.succeeded else {
            throw Failure(message: "\(tool) failed: \(String(decoding: result.error, as: UTF8.self))")
        }
    }
}
