import Foundation
import LocalOrigin
import Synchronization
import Testing
import WebCacheTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Stopping a server must touch only its own sockets, even when it races the end of one of its
/// connections: the system gives a closed descriptor's number to the next socket this process opens.
@Suite struct OriginServerStopTests {
    /// While other threads keep fetching from one server, thousands of short-lived servers are
    /// stopped just as their own connection ends. Every fetch must still get its whole response.
    ///
    /// A race, so a stress test: when `stop()` shut down descriptors it had read before their
    /// connections closed them, this test failed in 6 of 10 runs.
    @Test func stoppingAServerLeavesTheSocketsOfOthersAlone() async throws {
        let steady = OriginServer { _ in .text("steady") }
        try steady.start()
        defer { steady.stop() }
        let cut = Mutex<[String]>([])
        let running = Mutex(true)
        let finished = Mutex(0)
        let fetchers = (0..<3).map { _ in
            Thread { [port = steady.port] in
                while running.withLock({ $0 }) {
                    let (reply, code) = Self.fetchClosing(port: port)
                    if code != 0 || !reply.hasSuffix("steady") {
                        cut.withLock { $0.append("errno \(code), \(reply.utf8.count) bytes") }
                    }
                }
                finished.withLock { $0 += 1 }
            }
        }
        fetchers.forEach { $0.start() }
        // The loop blocks, so it runs on a thread of its own.
        var failure: (any Error)?
        do { try await offThePool {
            for _ in 0..<4_000 {
                let brief = OriginServer { _ in .text("brief") }
                try brief.start()
                let connection = try #require(RawClient.connect(port: brief.port))
                Self.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", on: connection)
                usleep(UInt32.random(in: 0...400))
                brief.stop()
                close(connection)
            }
        } } catch { failure = error }
        running.withLock { $0 = false }
        while finished.withLock({ $0 }) < fetchers.count { try await Task.sleep(for: .milliseconds(10)) }
        if let failure { throw failure }
        #expect(cut.withLock { $0 } == [])
    }

    private static func send(_ text: String, on descriptor: Int32) {
        let bytes = Array(text.utf8)
        _ = Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// One request on a connection of its own, read until the server closes: the reply and the
    /// `errno` the read ended with (0 for an orderly end).
    private static func fetchClosing(port: UInt16) -> (reply: String, errno: Int32) {
        guard let descriptor = RawClient.connect(port: port) else { return ("", errno) }
        defer { close(descriptor) }
        send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", on: descriptor)
        var reply = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                reply += buffer[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return (String(decoding: reply, as: UTF8.self), count < 0 ? errno : 0)
            }
        }
    }
}
