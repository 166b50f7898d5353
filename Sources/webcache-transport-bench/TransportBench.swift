import Foundation
import HTTPCore
import Transport
import WebCacheURLSession

/// `webcache-transport-bench --urls FILE [--parallel N] [--transport curl|urlsession]`: fetches every
/// URL of FILE (one per line) through a transport with N requests in flight, reads every body, and
/// prints one line: `requests=… bytes=… errors=… seconds=… rps=…`. Used by `scripts/bench-transport.sh`.
@main
struct TransportBench {
    static func main() async {
        var urlFile: String?
        var parallel = 16
        var kind = "curl"
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--urls": urlFile = arguments.next()
            case "--parallel": parallel = arguments.next().flatMap { Int($0) } ?? 0
            case "--transport": kind = arguments.next() ?? ""
            default: fail("Unknown option '\(argument)'")
            }
        }
        guard let urlFile, let text = try? String(contentsOfFile: urlFile, encoding: .utf8) else {
            fail("Missing or unreadable '--urls <file>'")
        }
        guard parallel > 0 else { fail("The value for '--parallel <n>' must be a positive number") }
        let urls = text.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
        let transport: any HTTPTransport
        switch kind {
        case "curl":
            var configuration = CurlTransport.Configuration()
            configuration.maxConnectionsPerHost = parallel
            guard let curl = try? CurlTransport(configuration: configuration) else { fail("libcurl setup failed") }
            transport = curl
        case "urlsession":
            var configuration = URLSessionTransport.Configuration()
            configuration.maxConnectionsPerHost = parallel
            transport = URLSessionTransport(configuration: configuration)
        default:
            fail("The value '\(kind)' is invalid for '--transport <transport>'")
        }

        let start = ContinuousClock.now
        let (bytes, errors) = await withTaskGroup(of: Int?.self) { group -> (Int, Int) in
            var pending = urls.makeIterator()
            func addNext() -> Bool {
                guard let url = pending.next() else { return false }
                group.addTask {
                    guard let response = try? await transport.send(HTTPRequest(url: url)),
                        response.head.status == 200
                    else { return nil }
                    var count = 0
                    do {
                        for try await chunk in response.body { count += chunk.count }
                    } catch {
                        return nil
                    }
                    return count
                }
                return true
            }
            for _ in 0..<parallel where !addNext() { break }
            var bytes = 0
            var errors = 0
            while let result = await group.next() {
                if let result { bytes += result } else { errors += 1 }
                _ = addNext()
            }
            return (bytes, errors)
        }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = Double(urls.count) / seconds
        print("requests=\(urls.count) bytes=\(bytes) errors=\(errors) seconds=\(seconds) rps=\(Int(rate))")
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        exit(64)
    }
}
