import Foundation

/// Writes a HAR 1.2 file entry by entry, so that only one entry is in memory at a time (HAR holds
/// each body whole, as text or base64, inside its entry).
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
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw ArchiveError(reason: "The file cannot be created.")
        }
        self.handle = handle
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let creatorJSON = try encoder.encode(["name": creator, "version": version])
        try handle.write(contentsOf: Data("{\"log\":{\"version\":\"1.2\",\"creator\":".utf8) + creatorJSON
            + Data(",\"pages\":[],\"entries\":[\n".utf8))
    }

    /// Appends `entry` to the log.
    public func write(_ entry: HAREntry) throws {
        var data = try encoder.encode(entry)
        if count > 0 { data.insert(contentsOf: Data(",\n".utf8), at: 0) }
        try handle.write(contentsOf: data)
        count += 1
    }

    /// Ends the log and closes the file.
    public func close() throws {
        try handle.write(contentsOf: Data("\n]}}\n".utf8))
        try handle.synchronize()
        try handle.close()
    }
}

/// Reads the entries of a HAR file. The file is parsed whole (JSON has no record boundaries), then
/// each entry is decoded on its own, so that a malformed entry is reported by its index and the
/// others are still read.
public struct HARReader {
    private let entries: [Any]

    /// Parses the HAR file at `path`.
    ///
    /// - Throws: ``ArchiveError`` when the file is not JSON or has no `log.entries` array.
    public init(path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw ArchiveError(reason: "The file cannot be read: \(error.localizedDescription)")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ArchiveError(reason: "The file is not valid JSON, so it is not a HAR file.")
        }
        guard let log = (object as? [String: Any])?["log"] as? [String: Any], let entries = log["entries"] as? [Any]
        else {
            throw ArchiveError(reason: "The file has no log.entries array, so it is not a HAR file.")
        }
        self.entries = entries
    }

    /// The number of entries.
    public var count: Int { entries.count }

    /// Entry `index`.
    ///
    /// - Throws: ``ArchiveError`` naming the entry when it lacks a field HAR requires.
    public func entry(at index: Int) throws -> HAREntry {
        do {
            let data = try JSONSerialization.data(withJSONObject: entries[index])
            return try JSONDecoder().decode(HAREntry.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            let path = (context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
            throw ArchiveError(entry: index, reason: "The entry has no '\(path)'.")
        } catch {
            throw ArchiveError(entry: index, reason: "The entry is not a valid HAR entry.")
        }
    }
}
