import FoundationEssentials
import WebCacheCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(CMimalloc)
    // Linked for its malloc and free, which take the place of the C library's in the whole process.
    import CMimalloc
#endif

/// The `webcache` executable: forwards its arguments to the command line interface and exits with its code.
@main
struct WebCacheMain {
    static func main() async {
        let code = await CommandLineInterface.run(Array(CommandLine.arguments.dropFirst()))
        exit(code)
    }
}
