/// A problem with an archive's bytes: where it is and what is wrong.
///
/// `offset` is the byte offset in the file (for a gzip-compressed WARC, of the gzip member the record
/// starts in, as `warcio index` and CDX indexes count), so that a message reads `FILE@OFFSET: reason`
/// like the URL list's `FILE:LINE: reason`. For HAR, ``entry`` names the entry instead.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// The byte offset of the damaged record, or `nil` when the problem has no place in the file.
    public var offset: Int64?
    /// The index of the HAR entry concerned, from 0, when the input is a HAR file.
    public var entry: Int?
    /// What is wrong, as a sentence.
    public var reason: String

    /// Creates an error at `offset` (or HAR `entry`) with `reason`.
    public init(offset: Int64? = nil, entry: Int? = nil, reason: String) {
        self.offset = offset
        self.entry = entry
        self.reason = reason
    }

    /// `FILE@OFFSET: reason`, `FILE#ENTRY: reason` or `FILE: reason` for the file named `file`.
    public func message(file: String) -> String {
        if let offset { return "\(file)@\(offset): \(reason)" }
        if let entry { return "\(file)#entry \(entry): \(reason)" }
        return "\(file): \(reason)"
    }

    public var description: String { message(file: "archive") }
}
