import Foundation

/// Writes a HAR 1.2 file entry by entry, so that only one entry is in memory at a time (HAR holds
/// each body whole, as text or base64, inside its entry). The log's pages, if any, are written after
/// its entries, when it is closed: JSON members have no order, and readers take the log whole.
///
/// ```swift
/// let writer = try HARWriter(path: "site.har", creator: "webcache")
/// try writer.write(entry)
/// try writer.close()
/// ```
public final class HARWriter {
    private let handle: FileHandle
    private var count = 0
    private let encoder: JSONEncoder

    /// Creates (or truncates) the file at `path` and writes the log's opening.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be created.
    public init(path: String, creator: String, version: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ArchiveError(reason: "The file cannot be created: \(String(cString: strerror(errno))).")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let creatorJSON = try encoder.encode(["name": creator, "version": version])
        try handle.write(contentsOf: Data("{\"log\":{\"version\":\"1.2\",\"creator\":".utf8) + creatorJSON
            + Data(",\"entries\":[\n".utf8))
    }

    /// Appends `entry` to the log.
    public func write(_ entry: HAREntry) throws {
        var data = try encoder.encode(entry)
        if count > 0 { data.insert(contentsOf: Data(",\n".utf8), at: 0) }
        try handle.write(contentsOf: data)
        count += 1
    }

    /// Ends the log with its `pages` and closes the file.
    public func close(pages: [HARPage] = []) throws {
        try handle.write(contentsOf: Data("\n],\"pages\":".utf8) + encoder.encode(pages) + Data("}}\n".utf8))
        try handle.synchronize()
        try handle.close()
    }
}
