#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs work on a POSIX thread of its own, outside Swift concurrency's cooperative pool, for the
/// loops that block in system calls (the curl event loop, pipe readers and writers, a child's
/// output), and blocks a thread for a while. Foundation's `Thread` did this, but it is not in
/// FoundationEssentials.
public enum POSIXThread {
    /// Starts a detached thread that runs `body` and ends with it.
    /// - Parameter name: the thread's name as tools show it (`top -H`, debuggers), cut to the 15
    ///   bytes Linux keeps.
    public static func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        let result = create(name: name, body)
        precondition(result == 0, "pthread_create failed: \(String(cString: strerror(result)))")
    }

    /// Starts a detached thread that runs `body` as ``start(name:_:)`` does, or returns `false` when the
    /// system has no thread to give (`body` does not run then): for work that can run elsewhere.
    public static func startIfPossible(name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        create(name: name, body) == 0
    }

    /// `pthread_create`'s result for a detached thread running `body`.
    private static func create(name: String?, _ body: @escaping @Sendable () -> Void) -> Int32 {
        let context = Unmanaged.passRetained(Context(name: name, body: body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, runPOSIXThread, context.toOpaque())
        if result != 0 { context.release() }
        return result
    }

    /// Blocks the calling thread for `seconds` (as `Thread.sleep(forTimeInterval:)`), resuming the
    /// wait when a signal interrupts it.
    public static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        let whole = seconds.rounded(.down)
        var remaining = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
        var left = timespec()
        while nanosleep(&remaining, &left) != 0, errno == EINTR { remaining = left }
    }

    /// Names the calling thread: Glibc's `pthread_setname_np` is not visible to Swift, so the name is
    /// written where it keeps it.
    fileprivate static func setName(_ name: String) {
        #if os(Linux)
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = write(descriptor, bytes, bytes.count)
        close(descriptor)
        #endif
    }

    fileprivate final class Context: Sendable {
        let name: String?
        let body: @Sendable () -> Void

        init(name: String?, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

/// The start routine of a ``POSIXThread``: takes the context `start` retained, names the thread and
/// runs the body.
private func runPOSIXThread(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let raw else { return nil }
    let context = Unmanaged<POSIXThread.Context>.fromOpaque(raw).takeRetainedValue()
    if let name = context.name { POSIXThread.setName(name) }
    context.body()
    return nil
}
