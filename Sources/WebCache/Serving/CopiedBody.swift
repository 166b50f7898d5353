import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stored body copied into memory of its own in the read that found its entry and checked there
/// (``CacheStore/variants(partition:method:url:copyingBodyIfFreshAt:upTo:)``), for a server to send
/// from that memory as it is: ``take()`` hands it over, and memory not taken is freed with the body.
public final class CopiedBody: Sendable, Equatable {
    /// The address of the `malloc` memory, as a number (a pointer is not `Sendable`).
    private let address: UInt
    /// The body's size in bytes.
    public let count: Int
    private let taken = Atomic<Bool>(false)

    /// Owns `bytes`, memory from `malloc`.
    init(_ bytes: UnsafeMutableRawBufferPointer) {
        address = UInt(bitPattern: bytes.baseAddress)
        count = bytes.count
    }

    /// The body's bytes, for reading while this body holds them.
    public var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count)
    }

    /// Hands the memory over: from now on the caller frees it with `free` (or passes it to a library
    /// that does). `nil` when it was taken before.
    public func take() -> UnsafeMutableRawPointer? {
        guard !taken.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
        return UnsafeMutableRawPointer(bitPattern: address)
    }

    deinit {
        if !taken.load(ordering: .acquiring) { free(UnsafeMutableRawPointer(bitPattern: address)) }
    }

    public static func == (lhs: CopiedBody, rhs: CopiedBody) -> Bool { lhs === rhs }
}
