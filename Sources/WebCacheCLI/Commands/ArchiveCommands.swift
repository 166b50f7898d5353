import CacheStore
import FoundationEssentials

extension CommandCatalog {
    static let export = CommandSpec(
        name: "export",
        abstract: "Write stored entries to a WARC or HAR file.",
        discussion: """
            With --warc: WARC 1.1, each record gzip-compressed on its own when FILE ends in .gz; a warcinfo \
            record, then per entry a response record (a revisit record when an earlier record holds the same \
            body) and its request record, with SHA-256 block and payload digests; a partial entry as a 206 \
            response for each of its parts. With --har: HAR 1.2, bodies as text or base64. Headers are as \
            received; a body stored decoded from a content coding is written decoded, its coding named in \
            X-WebCache-Decoded-From. Without a selection option, every entry. FILE is never '-', the store, or \
            a file SQLite keeps beside it. An entry whose body cannot be read is reported by URL and left out, \
            and the exit code is then 1.
            """,
        options: [
            OptionSpec(names: ["--warc"], kind: .value(name: "file"), help: "Write a WARC file (.warc or .warc.gz)."),
            OptionSpec(names: ["--har"], kind: .value(name: "file"), help: "Write a HAR file."),
            OptionSpec(names: ["--page"], kind: .value(name: "url"),
                       help: "Only this page (relative to --instance if not absolute) and the resources it needs."),
            OptionSpec(names: ["--host"], kind: .value(name: "host"), help: "Only entries from this host."),
            OptionSpec(names: ["--partition"], kind: .value(name: "name"), help: "Only entries in this partition."),
            OptionSpec(names: ["--json"], kind: .flag, help: "Write JSON to standard output."),
        ] + CommonOptions.store + [CommonOptions.instance] + CommonOptions.logging
    )

    static let `import` = CommandSpec(
        name: "import",
        abstract: "Store the responses of WARC, WACZ or HAR files.",
        discussion: """
            FILE is a .warc, .warc.gz, .wacz (a zip of WARC files) or .har. Each HTTP response (and each \
            revisit record, with the body it names) becomes an entry received at the time the archive \
            gives, so its age and freshness are as if it had been fetched then. A 206 with one Content-Range \
            of a known complete length is stored as a part of a partial entry, as a 206 from the network is, so \
            an exported partial entry comes back with its parts. A WARC record that holds interim (1xx) \
            responses before the final one is imported as its final one. Records that are not HTTP responses to \
            GET, and responses a cache does not store (a 304 that validates nothing, an interim response alone, \
            no-store in the request or response, a request's Authorization in the guest partition that the \
            response does not allow a shared cache to keep), are skipped and counted. A response older than \
            the one the store holds for its URL, partition and variant is left out and counted: the response \
            received last wins, as in merge. A damaged record, and a 206 whose bytes have no known place, is reported as \
            FILE@OFFSET: reason (FILE#entry N for HAR), and a file that is missing, unreadable, empty or not an \
            archive as FILE: reason; the import goes on, and the exit code is then 1. Entries are saved in \
            batches through the store's transactions: an import stopped at any point leaves the store sound. \
            SIGINT or SIGTERM stop it cleanly: it prints what was committed, saying it was interrupted, and \
            exits 130 or 143. The store is created when it does not exist.
            """,
        arguments: [ArgumentSpec(name: "file", help: "An archive to import; several may follow.", isRepeated: true)],
        options: [OptionSpec(names: ["--json"], kind: .flag, help: "Write JSON to standard output.")]
            + CommonOptions.store + CommonOptions.logging
    )

    static let merge = CommandSpec(
        name: "merge",
        abstract: "Merge stores into one.",
        discussion: """
            Entries, bodies (shared by their SHA-256), page edges, pins and partitions of each SOURCE are added \
            to the --into store, one transaction per source. For the same partition, URL and variant, the \
            response received last wins. Partial entries (kept ranges) come with their parts, and parts of a \
            representation are combined; a complete entry is never replaced by a part of itself. The sources \
            are only read; the --into store is created when it does not exist. A source that is missing, is not \
            a store or has damaged bodies is named and the others are merged; exits 1 then. A new --into store \
            into which no source could be merged is not left behind. Merged entries keep the times they were \
            stored and last used, and pages what they left out for their device. SIGINT or SIGTERM stop it \
            cleanly: the source being merged is left out whole, and the summary says which sources were not \
            merged (exit code 130 or 143).
            """,
        arguments: [ArgumentSpec(name: "source", help: "A store to merge; several may follow.", isRepeated: true)],
        options: [
            OptionSpec(
                names: ["--into"], kind: .value(name: "store"), help: "The store to merge into.", isRequired: true),
            OptionSpec(names: ["--json"], kind: .flag, help: "Write JSON to standard output."),
        ] + CommonOptions.logging
    )
}
