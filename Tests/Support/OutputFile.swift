import Foundation

/// A file that a child process writes its output to, read while the child runs.
public struct OutputFile: Sendable {
    /// The file's path.
    public let path: String

    /// The file at `path`; it need not exist yet.
    public init(path: String) {
        self.path = path
    }

    /// The complete lines written so far: a last line without its newline is still being written
    /// and is left out.
    public var lines: [String] {
        let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The first `count` complete lines, polled for at most 30 seconds (fewer if the file never
    /// gets that many).
    public func lines(_ count: Int) async throws -> [String] {
        var lines: [String] = []
        for _ in 0..<1_500 {
            lines = self.lines
            if lines.count >= count { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return Array(lines.prefix(count))
    }
}
