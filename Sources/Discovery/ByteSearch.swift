#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Searches for a byte in a buffer with the C library's `memchr`, which compares a vector register
/// of bytes at a time: the scanners skip text, comments and raw text with it at memory speed.
enum ByteSearch {
    /// The index of the first `byte` in `buffer[start..<end]`, or `nil`.
    @inline(__always)
    static func first(_ byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = buffer.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// The index of the first `byte` in `buffer[start...]`, or `buffer.count`.
    @inline(__always)
    static func firstOrEnd(_ byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        first(byte, in: buffer, from: start, to: buffer.count) ?? buffer.count
    }
}
