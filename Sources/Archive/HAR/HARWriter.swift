import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    private let handle: OpenFile
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
        handle = OpenFile(fileDescriptor: descriptor)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let creatorJSON = try encoder.encode(["name": creator, "version": version])
        try handle.write(contentsOf: Data("{\"log\":{\"version\":\"1.2\",\"creator\":".utf8) + creatorJSON
            + Data(",\"entries\":[\n".utf8))
    }

    /// Appends `entry` to the log.
    ///
    /// A long body text is written by the writer itself, escaped as bytes, in the place of a
    /// placeholder the encoder writes: the encoder escapes a string a character at a time, which
    /// took a third of a HAR export's time.
    public func write(_ entry: HAREntry) throws {
        var pieces: [Data]
        if let text = entry.response.content.text, text.utf8.count > Self.directTextLength {
            var shell = entry
            shell.response.content.text = placeholder
            let data = try encoder.encode(shell)
            guard let place = data.firstRange(of: Data(placeholder.utf8)) else {
                throw ArchiveError(reason: "The entry of \(entry.request.url) could not be written.")
            }
            var escaped = Data()
            escaped.reserveCapacity(text.utf8.count + text.utf8.count / 8)
            JSONString.appendEscaped(text, to: &escaped)
            pieces = [data[..<place.lowerBound], escaped, data[place.upperBound...]]
        } else {
            pieces = [try encoder.encode(entry)]
        }
        if count > 0 { pieces.insert(Data(",\n".utf8), at: 0) }
        for piece in pieces { try handle.write(contentsOf: piece) }
        count += 1
    }

    /// The body text length from which ``write(_:)`` writes the text itself.
    static let directTextLength = 4096

    /// A string the encoder writes as it is, found nowhere else in an entry.
    private let placeholder = "webcache-har-text-\(UUID().uuidString)"

    /// Ends the log with its `pages` and closes the file.
    public func close(pages: [HARPage] = []) throws {
        try handle.write(contentsOf: Data("\n],\"pages\":".utf8) + encoder.encode(pages) + Data("}}\n".utf8))
        try handle.synchronize()
        try handle.close()
    }
}
