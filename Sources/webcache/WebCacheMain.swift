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
        #if canImport(CMimalloc)
            shortenDecommitDelay()
        #endif
        let code = await CommandLineInterface.run(Array(CommandLine.arguments.dropFirst()))
        exit(code)
    }

    #if canImport(CMimalloc)
        /// mimalloc gives freed memory back to the system 25 ms after a segment's last free by default,
        /// and each later free pushes that on: a preload that frees all the time held more of it the
        /// longer it ran (a 10,000-page site peaked 1.22x above a 100-page one; 10 ms: 1.17x, at the
        /// same CPU time there and on a site of large bodies; docs/design.md). The environment's
        /// `MIMALLOC_DECOMMIT_DELAY` still wins.
        private static func shortenDecommitDelay() {
            guard getenv("MIMALLOC_DECOMMIT_DELAY") == nil else { return }
            mi_option_set(mi_option_decommit_delay, 10)
        }
    #endif
}
