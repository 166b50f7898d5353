import Foundation
import Synchronization

/// Where a command writes text: standard output or error in the tool, a buffer in tests.
public protocol TextOutput: Sendable {
    func write(_ text: String)
    /// Whether this is an interactive terminal (live progress lines are shown only there).
    var isTerminal: Bool { get }
}

/// Writes to a file descriptor such as standard output.
public struct FileDescriptorOutput: TextOutput {
    private let descriptor: Int32

    public static let standardOutput = FileDescriptorOutput(descriptor: STDOUT_FILENO)
    public static let standardError = FileDescriptorOutput(descriptor: STDERR_FILENO)

    public var isTerminal: Bool { isatty(descriptor) == 1 }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // A closed pipe: nothing sensible is left to do with the text.
                }
                offset += written
            }
        }
    }
}

/// Collects text in memory, for tests.
public final class BufferedOutput: TextOutput {
    private let buffer = Mutex("")
    public let isTerminal = false

    public init() {}

    public func write(_ text: String) {
        buffer.withLock { $0 += text }
    }

    /// Everything written so far.
    public var text: String {
        buffer.withLock { $0 }
    }
}
