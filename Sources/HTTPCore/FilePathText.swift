import FoundationEssentials

/// File paths as text, changed as `NSString`'s path methods change them, for the modules that do
/// without Foundation's `NSString`.
public enum FilePathText {
    /// `path` without its last component (`NSString.deletingLastPathComponent`): repeated and
    /// trailing slashes are dropped first; `"a"` gives `""`, `"/a"` gives `"/"`, `"/"` stays `"/"`.
    public static func deletingLastComponent(of path: String) -> String {
        let fixed = withoutExtraSlashes(path)
        guard fixed != "/", !fixed.isEmpty else { return fixed }
        guard let slash = fixed.lastIndex(of: "/") else { return "" }
        return slash == fixed.startIndex ? "/" : String(fixed[..<slash])
    }

    /// `path` and `component` joined by one slash (`NSString.appendingPathComponent`): `component`
    /// alone when `path` is empty, `path` alone when `component` is.
    public static func appending(_ component: String, to path: String) -> String {
        if component.isEmpty { return path }
        if path.isEmpty { return component }
        return path.hasSuffix("/") ? path + component : path + "/" + component
    }

    /// The folder for temporary files, ending in a slash (`NSTemporaryDirectory()`): `$TMPDIR`, or
    /// `/tmp/` when it is unset.
    public static var temporaryFolder: String {
        guard let folder = ProcessInfo.processInfo.environment["TMPDIR"] else { return "/tmp/" }
        return folder.hasSuffix("/") ? folder : folder + "/"
    }

    /// `path` with each run of slashes made one and, unless it is `/`, no slash at its end.
    private static func withoutExtraSlashes(_ path: String) -> String {
        var result = ""
        result.reserveCapacity(path.utf8.count)
        for character in path where !(character == "/" && result.hasSuffix("/")) {
            result.append(character)
        }
        if result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return result
    }
}
