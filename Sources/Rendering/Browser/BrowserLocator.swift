import FoundationEssentials

/// Finds the Chromium executable: the one given, else `chromium`, `chromium-browser`,
/// `google-chrome` or `google-chrome-stable` on the search path.
public enum BrowserLocator {
    /// The names tried on the search path, in order.
    public static let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    /// The path of the browser to run.
    /// - Parameters:
    ///   - explicit: a path the user gave; it must be an executable file.
    ///   - searchPath: the `PATH` to search when none is given.
    /// - Throws: ``RenderingError`` with code ``RenderingError/Code/browserMissing``, naming the
    ///   Debian package and the command line's `--chromium` option.
    public static func locate(explicit: String?, searchPath: String?) throws(RenderingError) -> String {
        let fileManager = FileManager.default
        if let explicit {
            var isDirectory = false
            guard fileManager.fileExists(atPath: explicit, isDirectory: &isDirectory), !isDirectory,
                fileManager.isExecutableFile(atPath: explicit)
            else {
                throw RenderingError(.browserMissing, "The browser '\(explicit)' is not an executable file; give the "
                    + "path of Chromium's executable (--chromium PATH on the command line).")
            }
            return explicit
        }
        let folders = (searchPath ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in names {
            for folder in folders where !folder.isEmpty {
                let candidate = folder + "/" + name
                if fileManager.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        throw RenderingError(.browserMissing, "Rendering pages needs Chromium, and none was found on the search path "
            + "(\(names.joined(separator: ", "))): install the Debian package 'chromium' (apt-get install chromium), "
            + "or give the browser's executable with --chromium PATH.")
    }
}
