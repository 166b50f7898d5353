import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes: standard output or error in the tool, a buffer in tests.
public protocol TextOutput: Sendable {
    /// Writes bytes as they are (a response body may be binary).
    func write(data: Data)
    /// Whether this is an interactive terminal (live progress lines are shown only there).
    var isTerminal: Bool { get }
}

extension TextOutput {
    /// Writes text as UTF-8.
    public func write(_ text: String) {
        write(data: Data(text.utf8))
    }
}

/// Writes to a file descriptor such as standard output.
public struct FileDescriptorOutput: TextOutput {
    private let descriptor: Int32
    /// Asked once: a progress display asks for every event, and each `isatty` is a system call.
    public let isTerminal: Bool

    public static let standardOutput = FileDescriptorOutput(descriptor: STDOUT_FILENO)
    public static let standardError = FileDescriptorOutput(descriptor: STDERR_FILENO)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        isTerminal = isatty(descriptor) == 1
    }

    public func write(data: Data) {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = writeBytes(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // A closed pipe: nothing sensible is left to do with the bytes.
                }
                offset += written
            }
        }
    }
}

/// Collects output in memory, for tests.
public final class BufferedOutput: TextOutput {
    private let buffer = Mutex(Data())
    public let isTerminal = false

    public init() {}

    public func write(data: Data) {
        buffer.withLock { $0.append(data) }
    }

    /// Everything written so far, as text.
    public var text: String {
        String(decoding: buffer.withLock { $0 }, as: UTF8.self)
    }
}

/// `write(2)`, named apart from the methods called `write` where it is used.
private func writeBytes(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
