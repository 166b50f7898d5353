import Foundation

/// Destroys one page of an SQLite file, as a failing disk might.
public enum DamagedPage {
    /// The page could not be chosen: `marker` is not in the file, or only on its first page (whose
    /// loss makes the whole file unreadable rather than a part of it).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Overwrites the page of the file at `path` that holds the first occurrence of `marker` with
    /// bytes no page can hold.
    public static func destroy(containing marker: String, in path: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let found = bytes.firstRange(of: Data(marker.utf8)) else {
            throw Failure(description: "\(marker) is not in \(path)")
        }
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let start = found.lowerBound / pageSize * pageSize
        guard start > 0 else { throw Failure(description: "\(marker) is on the first page of \(path)") }
        bytes.replaceSubrange(start..<(start + pageSize), with: Data(repeating: 0xFF, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: path))
    }
}
