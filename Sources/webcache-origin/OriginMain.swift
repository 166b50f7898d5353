import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `webcache-origin --root DIR [--address IPV4] [--port N] [--latency MS] [--log FILE]`: serves a
/// directory on 127.0.0.1 (or the given address) and prints its base URL as the first line of standard output; stops on SIGINT or
/// SIGTERM. With `--log`, each request's method and target are appended to FILE as it arrives.
@main
struct OriginMain {
    static let usage = """
        OVERVIEW: Serves a directory over HTTP/1.1 on 127.0.0.1 for tests and benchmarks.

        USAGE: webcache-origin --root <root> [--address <address>] [--port <port>] [--latency <latency>] [--app-token <token>] [--log <file>]

        OPTIONS:
          --root <root>           The directory to serve.
          --app-token <token>     Serve the directory as a single-page app with sessions that a
                                  bearer token starts (repeatable); its routes and API need one.
          --address <address>     The numeric IPv4 address to listen on. (default: 127.0.0.1)
          --port <port>           The TCP port; 0 picks a free one. (default: 0)
          --latency <latency>     Milliseconds added before every response. (default: 0)
          --log <file>            Append each request's method and target to this file, a line each.
          -h, --help              Show help information.

        """

    static func main() {
        var root: String?
        var port: UInt16 = 0
        var address = "127.0.0.1"
        var latency = 0
        var appTokens: Set<String> = []
        var logPath: String?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "-h", "--help":
                FileHandle.standardOutput.write(Data(usage.utf8))
                exit(0)
            case "--app-token":
                appTokens.insert(value(for: argument, from: &arguments))
            case "--root":
                root = value(for: argument, from: &arguments)
            case "--address":
                address = value(for: argument, from: &arguments)
            case "--port":
                let text = value(for: argument, from: &arguments)
                guard let parsed = UInt16(text) else { fail("The value '\(text)' is invalid for '--port <port>'") }
                port = parsed
            case "--latency":
                let text = value(for: argument, from: &arguments)
                guard let parsed = Int(text), parsed >= 0 else {
                    fail("The value '\(text)' is invalid for '--latency <latency>'")
                }
                latency = parsed
            case "--log":
                logPath = value(for: argument, from: &arguments)
            default:
                fail("Unknown option '\(argument)'")
            }
        }
        guard let root else { fail("Missing expected argument '--root <root>'") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            fail("The directory '\(root)' does not exist.")
        }
        // Block the stop signals in every thread (server threads inherit the mask) and wait for them below.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let folder = URL(fileURLWithPath: root)
        var handler = appTokens.isEmpty ? StaticSite(root: folder).handler
            : SinglePageApp(root: folder, tokens: appTokens).handler
        if let logPath {
            // Opened in place to append, as its help says: the file (or the pipe) it names is kept.
            let descriptor = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                fail("The log file '\(logPath)' cannot be written: \(String(cString: strerror(errno))).")
            }
            let log = RequestLogFile(file: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
            handler = { [handler] request in
                log.append("\(request.method.rawValue) \(request.target)\n")
                return handler(request)
            }
        }
        var configuration = OriginServer.Configuration(port: port, latency: .milliseconds(latency))
        configuration.address = address
        let server = OriginServer(configuration: configuration, handler: handler)
        do {
            try server.start()
        } catch {
            fail(error.description)
        }
        FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))

        // Wait for SIGINT or SIGTERM; they are blocked (see above) so no handler races with this wait.
        var received: Int32 = 0
        sigwait(&signals, &received)
        server.stop()
    }

    private static func value(
        for option: String,
        from arguments: inout IndexingIterator<ArraySlice<String>>
    ) -> String {
        guard let value = arguments.next() else { fail("Missing value for '\(option)'") }
        return value
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        let usageLine = "Usage: webcache-origin --root <root> [--address <address>] [--port <port>] [--latency <latency>] [--app-token <token>] [--log <file>]\n"
        FileHandle.standardError.write(Data(usageLine.utf8))
        exit(64)
    }
}

/// The request log file, written from the connection threads one whole line at a time.
private final class RequestLogFile: Sendable {
    private let file: Mutex<FileHandle>

    init(file: FileHandle) {
        self.file = Mutex(file)
    }

    func append(_ line: String) {
        file.withLock { $0.write(Data(line.utf8)) }
    }
}
