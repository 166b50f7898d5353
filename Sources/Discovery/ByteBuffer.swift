/// A growable run of bytes emptied by setting its count: the tokenizer empties one for every tag
/// name and attribute value, and `[UInt8].removeAll(keepingCapacity:)` goes through the generic
/// `replaceSubrange` (about 85 instructions each time).
struct ByteBuffer: Sendable, CustomDebugStringConvertible {
    /// The bytes; those from ``count`` on are left from earlier contents, kept as room.
    private var storage: [UInt8] = []
    /// The number of bytes held.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The last byte held, if any.
    var last: UInt8? { count == 0 ? nil : storage[count - 1] }

    /// The bytes held, as a slice of the storage (indices from 0).
    var bytes: ArraySlice<UInt8> { storage[..<count] }

    /// Empties the buffer, keeping its room.
    @inline(__always)
    mutating func removeAll() {
        count = 0
    }

    /// Drops the last byte, which must be there.
    mutating func removeLast() {
        precondition(count > 0, "removeLast() of an empty ByteBuffer")
        count -= 1
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count < storage.count {
            storage[count] = byte
        } else {
            storage.append(byte)
        }
        count += 1
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        let overwritten = min(storage.count - count, bytes.count)
        if overwritten > 0 {
            storage.withUnsafeMutableBufferPointer {
                _ = UnsafeMutableBufferPointer(rebasing: $0[count..<(count + overwritten)])
                    .initialize(from: bytes.prefix(overwritten))
            }
        }
        if overwritten < bytes.count { storage.append(contentsOf: bytes[overwritten...]) }
        count += bytes.count
    }

    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// The bytes held, without the room left from earlier contents: an emptied buffer reads as a
    /// new one.
    var debugDescription: String { "ByteBuffer(\(Array(bytes)))" }

    /// Calls `body` with the bytes held.
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }
}
