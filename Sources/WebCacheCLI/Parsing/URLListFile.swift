import Foundation
import HTTPCore

/// A list of URLs read from a file: one per line, `#` starts a comment, blank lines are allowed.
///
/// Lines that cannot be used are not fatal: each becomes a ``Problem`` that names the file and the
/// line, so a run can report them as `FILE:LINE: reason`, skip them and go on with the rest.
struct URLListFile: Sendable {
    /// A line that was skipped, and why.
    struct Problem: Sendable, Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var reason: String
        var description: String { "\(file):\(line): \(reason)" }
    }

    /// The usable entries, in file order, with the line each came from. Relative references are kept
    /// as written; the caller resolves them against the instance URL.
    var entries: [(line: Int, text: String)] = []
    var problems: [Problem] = []
    /// The file's name as problems give it.
    let name: String

    /// Lines longer than this are refused rather than held in memory.
    static let maximumLineLength = 8192

    /// The path that names standard input, as for curl and wget.
    static let standardInputPath = "-"

    /// Reads and classifies the lines of the file at `path`, or of standard input for `-`.
    ///
    /// The file is read with plain reads to its end, so a pipe, a FIFO, `/dev/stdin` or a process
    /// substitution (`<(…)`) works as well as a regular file.
    /// - Throws: ``CLIError`` naming the file when it does not exist, is a directory, or cannot be read.
    init(path: String) throws(CLIError) {
        let name = path == URLListFile.standardInputPath ? "<stdin>" : path
        let data: Data
        do throws(InputFile.Error) {
            data = path == URLListFile.standardInputPath
                ? try InputFile.read(descriptor: STDIN_FILENO, name: name)
                : try InputFile.read(path: path)
        } catch {
            throw CLIError(error.sentence(calling: "URL file"))
        }
        self.init(data: data, name: name)
    }

    /// Classifies the lines of `data`, naming them after `name` in problems.
    init(data: Data, name: String) {
        self.name = name
        var lineNumber = 0
        for rawLine in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if rawLine.count > URLListFile.maximumLineLength {
                problems.append(Problem(file: name, line: lineNumber,
                                        reason: "line is \(rawLine.count) bytes long; the limit is \(URLListFile.maximumLineLength)"))
                continue
            }
            guard let decoded = String(validating: rawLine, as: UTF8.self) else {
                problems.append(Problem(file: name, line: lineNumber, reason: "line is not valid UTF-8 text"))
                continue
            }
            // A comment is a `#` at the start of the line or after white space; a `#` inside a URL is a fragment.
            var text = Substring(decoded)
            if let hash = text.indices.first(where: {
                text[$0] == "#" && ($0 == text.startIndex || text[text.index(before: $0)].isWhitespace)
            }) {
                text = text[..<hash]
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            if trimmed.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) {
                problems.append(Problem(file: name, line: lineNumber,
                                        reason: "'\(URLListFile.excerpt(trimmed))' contains spaces or control characters"))
                continue
            }
            entries.append((lineNumber, trimmed))
        }
    }

    /// A line's value for messages (``MessageText/excerpt(_:limit:)``), up to 80 characters.
    static func excerpt(_ text: String) -> String {
        MessageText.excerpt(text, limit: 80)
    }
}
