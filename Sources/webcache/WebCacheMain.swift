import Foundation
import WebCacheCLI

/// The `webcache` executable: forwards its arguments to the command line interface and exits with its code.
@main
struct WebCacheMain {
    static func main() async {
        let code = await CommandLineInterface.run(Array(CommandLine.arguments.dropFirst()))
        exit(code)
    }
}
