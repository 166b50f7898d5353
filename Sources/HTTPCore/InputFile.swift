import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files a user names as input (a list of URLs, a token file, a CA file), read with plain POSIX
/// calls, with the reason a file cannot be read in words.
///
/// Plain reads to the end work on whatever can be opened: regular files, `/dev/null`, pipes,
/// FIFOs, `/dev/stdin` and process substitution (`<(…)`). Foundation's `Data(contentsOf:)` refuses
/// several of those with a permission error, and its errors print as raw `NSError` dumps.
public enum InputFile {
    /// Why a file cannot be read.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The path as given.
        public var path: String
        /// What is wrong, in words that follow the file's name: `does not exist`, `is a directory`,
        /// or `cannot be read: ` and the system's text for the error (`Permission denied`).
        public var reason: String

        /// Creates an error for `path`.
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        /// A sentence that names the file as `kind`: `The URL file 'urls.txt' does not exist.`
        public func sentence(calling kind: String) -> String {
            "The \(kind) '\(path)' \(reason)."
        }

        /// The sentence for a file called just that: `The file 'urls.txt' does not exist.`
        public var description: String { sentence(calling: "file") }
    }

    /// How much one `read` asks for.
    static let chunkSize = 64 * 1024

    /// Reads the file at `path` to its end.
    ///
    /// - Parameter isEnough: called with each chunk as it is read; reading stops after a chunk for
    ///   which it returns `true`, so that a caller can refuse a file without reading all of it.
    /// - Returns: what was read.
    /// - Throws: ``Error`` naming `path` when it does not exist, is a directory, or cannot be read.
    public static func read(path: String, until isEnough: (Data) -> Bool = { _ in false }) throws(Error) -> Data {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw failure(path: path, errno: errno) }
        defer { close(descriptor) }
        return try read(descriptor: descriptor, name: path, until: isEnough)
    }

    /// Reads the open `descriptor` (standard input, say) to its end, without closing it.
    ///
    /// - Parameters:
    ///   - name: what errors call it, in place of a path.
    ///   - isEnough: as for ``read(path:until:)``.
    /// - Throws: ``Error`` naming `name` when it is a directory or cannot be read.
    public static func read(descriptor: Int32, name: String, until isEnough: (Data) -> Bool = { _ in false })
        throws(Error) -> Data
    {
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw Error(path: name, reason: "is a directory")
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path: name, errno: errno)
            }
            if count == 0 { return data }
            let piece = Data(chunk[..<count])
            data.append(piece)
            if isEnough(piece) { return data }
        }
    }

    /// Checks, without opening it, that `path` names something that exists, is not a directory,
    /// and that this process may read. Opening a FIFO would take it from its writer, so it is not opened.
    ///
    /// - Throws: ``Error`` naming `path` when it does not exist, is a directory, or may not be read.
    public static func checkReadable(path: String) throws(Error) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure(path: path, errno: errno) }
        if status.st_mode & S_IFMT == S_IFDIR {
            throw Error(path: path, reason: "is a directory")
        }
        guard access(path, R_OK) == 0 else { throw failure(path: path, errno: errno) }
    }

    /// The error for `path` that the system's error `code` (from `open`, `read`) stands for.
    public static func failure(path: String, errno code: Int32) -> Error {
        switch code {
        case ENOENT: Error(path: path, reason: "does not exist")
        case EISDIR: Error(path: path, reason: "is a directory")
        default: Error(path: path, reason: "cannot be read: \(String(cString: strerror(code)))")
        }
    }
}

/// `read(2)`, named apart from the methods called `read` where it is used.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
