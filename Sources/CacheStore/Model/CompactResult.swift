/// What compacting the store gave back: the bytes of the store file and its log, before and after.
public struct CompactResult: Sendable, Hashable {
    /// The store file and its write-ahead log before compacting, in bytes.
    public var bytesBefore: Int64
    /// The store file and its write-ahead log after compacting, in bytes.
    public var bytesAfter: Int64

    /// The bytes given back to the file system.
    public var reclaimedBytes: Int64 { max(0, bytesBefore - bytesAfter) }
}
