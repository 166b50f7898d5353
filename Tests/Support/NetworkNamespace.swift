import ChildProcess
import Foundation

/// A network namespace of the tests' own (`ip netns`): a loopback interface that also holds a public
/// address (so that a server there counts as a public host), and its own `resolv.conf` and `hosts`
/// (`ip netns exec` mounts `/etc/netns/NAME/*` over `/etc`), so that a DNS server the test runs
/// inside answers every lookup made there. Creating one needs root and iproute2.
public final class NetworkNamespace: Sendable {
    /// The public address the namespace's loopback interface holds (TEST-NET-2, which the private
    /// address rules count as public).
    public static let publicAddress = "198.51.100.10"

    /// Whether namespaces can be made here: running as root with `ip` installed.
    public static var canCreate: Bool {
        getuid() == 0 && ipCommand != nil
    }

    private static var ipCommand: String? {
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A command that sets the namespace up failed.
    public struct Failure: Error, CustomStringConvertible {
        /// The command and what it printed.
        public var description: String
    }

    /// The namespace's name.
    public let name: String
    private let ip: String
    private let configuration: String

    /// Creates the namespace, its loopback interface with ``publicAddress``, and a `resolv.conf`
    /// naming 127.0.0.1 as the only DNS server.
    /// - Throws: ``Failure`` when `ip` fails, naming the command.
    public init() async throws {
        guard let ip = Self.ipCommand else { throw Failure(description: "The ip command is not installed.") }
        self.ip = ip
        await Self.removeLeftovers(ip: ip)
        name = "webcache-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        configuration = "/etc/netns/\(name)"
        try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
        try Data("nameserver 127.0.0.1\noptions attempts:1\n".utf8).write(
            to: URL(fileURLWithPath: "\(configuration)/resolv.conf"))
        try Data("127.0.0.1 localhost\n".utf8).write(to: URL(fileURLWithPath: "\(configuration)/hosts"))
        try await run(ip, ["netns", "add", name])
        try await run(ip, ["netns", "exec", name, ip, "link", "set", "lo", "up"])
        try await run(ip, ["netns", "exec", name, ip, "address", "add", "\(Self.publicAddress)/32", "dev", "lo"])
    }

    /// Starts `executable` inside the namespace; its outputs go to the given files.
    public func start(
        _ executable: String, _ arguments: [String], environment: [String: String], output: OutputFile,
        error: OutputFile
    ) throws -> ChildProcess {
        try ChildProcess.spawn(
            ip, ["netns", "exec", name, executable] + arguments, environment: environment,
            output: .file(output.path), error: .file(error.path))
    }

    /// Deletes the namespace and its configuration; the caller has stopped what runs inside.
    public func remove() async {
        try? await run(ip, ["netns", "delete", name])
        try? FileManager.default.removeItem(atPath: configuration)
    }

    /// Deletes the namespaces (and their configuration) of test runs that were killed before they
    /// could: those named for a process that is gone.
    private static func removeLeftovers(ip: String) async {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: "/etc/netns")) ?? []
        for name in folders where name.hasPrefix("webcache-") {
            let parts = name.split(separator: "-")
            guard parts.count == 3, let pid = pid_t(parts[1]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            if let process = try? ChildProcess.spawn(ip, ["netns", "delete", name], output: .pipe, error: .pipe) {
                _ = await process.finish()
            }
            try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
        }
    }

    private func run(_ executable: String, _ arguments: [String]) async throws {
        let process = try ChildProcess.spawn(executable, arguments, output: .pipe, error: .pipe)
        let result = await process.finish()
        guard result.termination.succeeded else {
            throw Failure(
                description: "\(executable) \(arguments.joined(separator: " ")) failed: "
                    + String(decoding: result.error, as: UTF8.self))
        }
    }
}
