import Foundation

/// The executables this build made: `.build/<configuration>/<name>`, found by searching upward
/// from the test bundle and from the source tree.
public enum BuiltProducts {
    /// No executable of that name was found.
    public struct NotFound: Error, CustomStringConvertible {
        /// The name that was searched for.
        public var name: String

        /// A sentence naming the executable and how to build it.
        public var description: String {
            "The \(name) executable was not found next to the test bundle (\(CommandLine.arguments[0])); "
                + "build it with `swift build --build-tests` before running the tests."
        }
    }

    /// The executable `name` of this build: a sibling of the test bundle, or `.build/debug/<name>`
    /// or `.build/release/<name>` in a folder above the test bundle or above the package's sources.
    public static func executable(named name: String) throws -> URL {
        let fileManager = FileManager.default
        let starts = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Repository.root,
        ]
        for start in starts {
            var directory = start
            for _ in 0..<8 {
                let sibling = directory.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                if fileManager.fileExists(atPath: sibling.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    fileManager.isExecutableFile(atPath: sibling.path)
                {
                    return sibling
                }
                for configuration in ["debug", "release"] {
                    let candidate = directory.appendingPathComponent(".build/\(configuration)/\(name)")
                    if fileManager.isExecutableFile(atPath: candidate.path) { return candidate }
                }
                directory.deleteLastPathComponent()
            }
        }
        throw NotFound(name: name)
    }

    /// The folder that holds the executable `name`, for scripts that take a folder of executables.
    public static func folder(containing name: String) throws -> URL {
        try executable(named: name).deletingLastPathComponent()
    }
}
