import FoundationEssentials
import HTTPCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads NUL-delimited messages from a pipe on a thread of its own and hands each, parsed, to
/// `deliver`; calls `ended` once at the end of the pipe (the browser exited or crashed) or on a read
/// error, then closes the pipe.
enum PipeReader {
    static func start(
        descriptor: Int32, deliver: @escaping @Sendable (DevToolsMessage) -> Void,
        ended: @escaping @Sendable (String) -> Void
    ) {
        POSIXThread.start(name: "DevTools.read") {
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    let reason = count == 0
                        ? "the browser closed its end of the pipe (it exited or crashed)"
                        : "reading from the browser failed: \(String(cString: strerror(errno)))"
                    close(descriptor)
                    ended(reason)
                    return
                }
                var start = pending.count
                pending.append(buffer, count: count)
                // Split at every NUL; what follows the last one waits for more bytes.
                var consumed = 0
                while let end = pending[pending.startIndex + start..<pending.endIndex].firstIndex(of: 0) {
                    let message = pending[pending.startIndex + consumed..<end]
                    if let parsed = DevToolsMessage.parse(Data(message)) { deliver(parsed) }
                    consumed = end - pending.startIndex + 1
                    start = consumed
                }
                if consumed > 0 { pending.removeFirst(consumed) }
            }
        }
    }
}
