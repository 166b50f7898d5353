import FoundationEssentials
import HTTPCore
import WebCache

/// What the parser read from the command line for one subcommand, before it becomes a typed command.
struct ParsedArguments: Sendable {
    /// The spec the arguments were parsed against; used to name the command in errors.
    var spec: CommandSpec
    /// Positional arguments in order.
    var positionals: [String] = []
    /// Values by option key; a flag holds one empty string per occurrence.
    var values: [String: [String]] = [:]

    /// Whether a flag was given.
    func flag(_ key: String) -> Bool {
        values[key] != nil
    }

    /// The last value given for an option (later ones override earlier ones, as in most tools).
    func value(_ key: String) -> String? {
        values[key]?.last
    }

    /// Every value given for a repeatable option, in order.
    func allValues(_ key: String) -> [String] {
        values[key] ?? []
    }

    /// `text`, given for `option` (as help spells it: `--instance <url>`, or `<url>` for an
    /// argument), as an absolute URL webcache can request (``HTTPURLCheck``), or a usage error that
    /// names it and says what is wrong. A URL that may be relative to `--instance` is read by
    /// ``requestURL(_:for:)``.
    func url(_ text: String, for option: String) throws(UsageError) -> URL {
        do throws(HTTPURLCheck.Problem) {
            return try HTTPURLCheck.url(text)
        } catch {
            throw UsageError("The value '\(MessageText.excerpt(text, limit: 100))' is invalid for '\(option)': "
                             + "it \(error)", command: spec)
        }
    }

    /// `--instance`, checked, or `nil` when it is not given.
    func instanceURL() throws(UsageError) -> URL? {
        guard let text = value("instance") else { return nil }
        return try url(text, for: "--instance <url>")
    }

    /// The URL that `text`, given for `option` (as help spells it), names: resolved against
    /// `--instance` when relative exactly as `get` loads a URL and `preload` reads a URL file
    /// (``WebCache/resolve(_:against:)``), so that a command names a stored URL as it was fetched.
    ///
    /// - Throws: ``UsageError`` naming the value when it is relative and there is no `--instance`, or
    ///   is no URL webcache can request.
    func requestURL(_ text: String, for option: String) throws(UsageError) -> URL {
        let instance = try instanceURL()
        // Made only for a value that is refused: a URL given well costs no excerpt.
        func invalid(_ reason: String) -> UsageError {
            UsageError(
                "The value '\(MessageText.excerpt(text, limit: 100))' is invalid for '\(option)': \(reason)",
                command: spec)
        }
        if instance == nil, URL.scheme(ofReference: text.trimmingWhitespace()) == nil {
            throw invalid("it is a relative URL, and there is no --instance <url> to resolve it against")
        }
        do {
            return try WebCache.resolve(text, against: instance)
        } catch {
            throw invalid((error.cause as? HTTPURLCheck.Problem).map { "it \($0)" } ?? error.message)
        }
    }

    /// The value converted by `transform`, or a usage error naming the option and the bad value.
    func value<T>(_ key: String, _ what: String, _ transform: (String) -> T?) throws(UsageError) -> T? {
        guard let raw = value(key) else { return nil }
        guard let converted = transform(raw) else {
            throw UsageError(
                "The value '\(raw)' is invalid for '--\(key) <\(what)>'",
                command: spec
            )
        }
        return converted
    }
}
