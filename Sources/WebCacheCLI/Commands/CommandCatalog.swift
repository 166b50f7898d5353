/// Every subcommand's spec, in the order `webcache --help` lists them.
enum CommandCatalog {
    static let abstract = "Preload web pages and their sub-resources into an offline store, and read them back."

    static let get = CommandSpec(
        name: "get",
        abstract: "Load a URL through the store and write its body to standard output.",
        discussion: """
            The store is consulted first: a fresh entry costs no request, a stale one is revalidated with a \
            conditional request. How the response was served goes to standard error. With --policy cache-only \
            the store is only read, so a store whose file or folder cannot be written works; the other policies \
            may store what they fetch, and refuse such a store before sending anything.
            """,
        arguments: [ArgumentSpec(name: "url", help: "The URL to load; relative to --instance if not absolute.")],
        options: [
            OptionSpec(names: ["--include", "-i"], kind: .flag,
                       help: "Write the status line (HTTP/1.1 200 OK) and headers before the body, as curl -i."),
            OptionSpec(names: ["--policy"], kind: .value(name: "policy"),
                       help: "default (RFC 9111), reload, cache-else-load, cache-only (never the network) or offline (the network, else what is stored).",
                       defaultValue: "default"),
            OptionSpec(names: ["--max-stale"], kind: .value(name: "duration"),
                       help: "With --policy offline: how stale an entry may be when the network fails (e.g. 7d)."),
            OptionSpec(names: ["--output", "-o"], kind: .value(name: "file"),
                       help: "Write the body to this file ('-': standard output)."),
        ] + CommonOptions.store + CommonOptions.network + CommonOptions.identity + CommonOptions.logging
    )

    static let preload = CommandSpec(
        name: "preload",
        abstract: "Preload the pages listed in a file, with their sub-resources.",
        discussion: """
            The file holds one URL per line; '#' starts a comment. '-' reads the list from standard input, and a \
            pipe or <(command) works as a file. A line that cannot be used is reported as FILE:LINE: reason and \
            skipped (the first 20 such lines; the rest are counted); a file with NUL bytes is refused whole. \
            Running it again revalidates what is stored instead of downloading again. SIGINT (Ctrl-C) or \
            SIGTERM stop it cleanly: what was stored stays, the pages that had settled are recorded, the \
            summary says it was interrupted, and the exit code is 130 or 143; a second signal stops it at once.
            """,
        arguments: [ArgumentSpec(name: "url-file", help: "The file with the URLs, or '-' for standard input.")],
        options: PreloadScopeOptions.specs + [
            OptionSpec(names: ["--depth"], kind: .value(name: "n"),
                       help: "Follow same-site links this many levels deep.", defaultValue: "0"),
            OptionSpec(names: ["--no-requisites"], kind: .flag, help: "Store only the listed pages."),
            OptionSpec(names: ["--shard"], kind: .value(name: "K/N"),
                       help: "Only the listed URLs whose registrable domain hashes to shard K of N (K from 0), "
                           + "the same on every machine: run N workers with K = 0 … N-1, then merge their stores."),
            OptionSpec(names: ["--json"], kind: .flag, help: "Write one JSON event per line to standard output."),
        ] + CommonOptions.store + CommonOptions.network + CommonOptions.identity + CommonOptions.logging
    )

    static let refresh = CommandSpec(
        name: "refresh",
        abstract: "Revalidate the stored pages and their sub-resources.",
        discussion: """
            Every page a preload stored (only those on the --host hosts, when given) is loaded again with \
            everything it needs, by conditional requests, fresh entries too. The scope and limit options work \
            as for preload; give those the pages were preloaded with. SIGINT or SIGTERM stop it cleanly, as \
            they stop preload (exit code 130 or 143).
            """,
        options: PreloadScopeOptions.specs + [
            OptionSpec(names: ["--host"], kind: .repeatedValue(name: "host"),
                       help: "Only pages on this host (repeatable)."),
            OptionSpec(names: ["--no-requisites"], kind: .flag,
                       help: "Revalidate only the pages; what they need stays as stored, and recorded."),
            OptionSpec(names: ["--json"], kind: .flag, help: "Write one JSON event per line to standard output."),
        ] + CommonOptions.store + CommonOptions.network + CommonOptions.identity + CommonOptions.logging
    )

    static let inspect = CommandSpec(
        name: "inspect",
        abstract: "Show what the store holds: totals, hosts, pages, or one entry.",
        discussion: """
            Without a URL: entries, bytes, distinct bodies, freshness, pins, partitions and hosts, counted from \
            the rows (a warning says when the store's running totals disagree with them). With a URL: \
            every stored variant of it, in every partition, with its headers (credentials and cookies redacted). \
            The store is only read, so a store whose file or folder cannot be written works.
            """,
        arguments: [ArgumentSpec(name: "url", help: "Show this entry's metadata; with --pages, only this page. "
                                     + "Relative to --instance if not absolute.", isOptional: true)],
        options: [
            OptionSpec(names: ["--pages"], kind: .flag,
                       help: "Per preloaded page: whether everything it needs is stored, and what failed."),
            OptionSpec(names: ["--json"], kind: .flag, help: "Write JSON to standard output."),
        ] + CommonOptions.store + [CommonOptions.instance] + CommonOptions.logging
    )

    static let prune = CommandSpec(
        name: "prune",
        abstract: "Remove entries from the store.",
        discussion: """
            Criteria combine: an entry goes when it matches all of them. Pinned entries stay unless \
            --include-pinned. At least one criterion is needed; to remove every entry, give --url-pattern '*'. \
            --page removes a whole page: the page and the resources it needs that no other page needs, and its \
            record, so that inspect --pages no longer lists it; the record stays while the page itself does. \
            --max-size works alone: it evicts least recently used unpinned entries until the bodies fit (the \
            entries of a body several share together, once the last of them is the least recently used), and \
            exits 1 when what is left frees nothing: pinned entries, and entries that share their bodies. \
            Removed entries leave free pages that later writes reuse; --compact gives them back to the \
            file system (it rewrites the store, so it needs about the store's size in free disk).
            """,
        options: [
            OptionSpec(names: ["--expired"], kind: .flag,
                       help: "Entries past their freshness lifetime and any stale-while-revalidate or stale-if-error "
                           + "window (no-cache ones as soon as stored): online they are revalidated before use, "
                           + "offline they are still served."),
            OptionSpec(names: ["--older-than"], kind: .value(name: "duration"), help: "Entries stored, or last confirmed by the origin, longer ago than this (e.g. 30d)."),
            OptionSpec(names: ["--host"], kind: .value(name: "host"),
                       help: "Entries from this host, as inspect lists it (an IPv6 address with or without brackets)."),
            OptionSpec(names: ["--url-pattern"], kind: .value(name: "glob"),
                       help: "Entries whose URL matches this glob: * any text, ? one character, [abc] one of a set, "
                           + "[^abc] none of it; case-sensitive; '[[]' matches a '['."),
            OptionSpec(names: ["--partition"], kind: .value(name: "name"), help: "Entries in this partition."),
            OptionSpec(names: ["--page"], kind: .value(name: "url"),
                       help: "This page (relative to --instance if not absolute) and the resources it needs that "
                           + "no other page needs."),
            OptionSpec(names: ["--max-size"], kind: .value(name: "size"),
                       help: "Evict least recently used entries until the store holds at most this much."),
            OptionSpec(names: ["--include-pinned"], kind: .flag, help: "Let the criteria remove pinned entries too."),
            OptionSpec(names: ["--compact"], kind: .flag,
                       help: "Then shrink the store file to what it holds (alone: only that)."),
            OptionSpec(names: ["--dry-run", "-n"], kind: .flag,
                       help: "Show what would be removed; remove nothing (the store is only read)."),
            OptionSpec(names: ["--json"], kind: .flag, help: "Write JSON to standard output."),
        ] + CommonOptions.store + [CommonOptions.instance] + CommonOptions.logging
    )

    static let pin = CommandSpec(
        name: "pin",
        abstract: "Keep an entry, or a page with everything it needs, out of eviction.",
        arguments: [ArgumentSpec(name: "url", help: "The entry or page URL; relative to --instance if not absolute.")],
        options: [
            OptionSpec(names: ["--unpin"], kind: .flag, help: "Let it be evicted again."),
            OptionSpec(names: ["--partition"], kind: .value(name: "name"),
                       help: "Only in this partition; without it, every partition that holds the URL."),
        ] + CommonOptions.store + [CommonOptions.instance] + CommonOptions.logging
    )

    static let verify = CommandSpec(
        name: "verify",
        abstract: "Check the store's integrity: SQLite's own check, every body's hash and chunk checksums.",
        discussion: """
            Without --repair the store is only read, so a store whose file or folder cannot be written works. \
            Each problem names the URLs of the entries it affects, where they can be read. A part of the file \
            that SQLite reports damaged is a problem of its own, and the checks go on past it. Exits 1 when \
            there is any problem; 'webcache salvage' then copies what is still sound into a new store. Running \
            totals that disagree with the rows (which inspect warns of, and eviction goes by) are put right in \
            place with --repair.
            """,
        options: [
            OptionSpec(names: ["--repair"], kind: .flag,
                       help: "Recompute running totals that disagree with the rows, in one transaction (this "
                           + "writes the store)."),
            OptionSpec(names: ["--json"], kind: .flag, help: "Write JSON to standard output."),
        ] + CommonOptions.store + CommonOptions.logging
    )

    static let logout = CommandSpec(
        name: "logout",
        abstract: "Drop the signed-in user's cookies, tokens and private entries.",
        discussion: """
            The user is the one --instance, --user and a token option (--token-command, --token-file or \
            --jwt-command) describe; the token command is not run. Without a token option nobody is signed \
            in: nothing is removed and the exit code is 0.
            """,
        options: CommonOptions.store + CommonOptions.identity + CommonOptions.logging
    )

    static let serve = CommandSpec(
        name: "serve",
        abstract: "Serve the store over HTTP on this machine, as a proxy for browsers and other clients.",
        discussion: """
            Use it as an HTTP proxy (http:// URLs; CONNECT for https is refused, since a TLS tunnel cannot be \
            cached), or with --upstream as a reverse proxy for one origin. Every request goes through the store \
            with HTTP caching rules; responses carry Age and X-WebCache (hit, revalidated, network or stale). \
            The listening URL is the first line on standard output, then one line per request, written in \
            batches (at most --log-flush later, and all of them when it stops). \
            SIGINT or SIGTERM stop it; a second one stops it at once.
            """,
        options: [
            OptionSpec(names: ["--port", "-p"], kind: .value(name: "port"), help: "The TCP port; 0 picks a free one.",
                       defaultValue: "8080"),
            OptionSpec(names: ["--bind"], kind: .value(name: "address"), help: "The IP address to listen on.",
                       defaultValue: "127.0.0.1"),
            OptionSpec(names: ["--upstream"], kind: .value(name: "url"),
                       help: "Send path-only requests to this origin (reverse proxy)."),
            OptionSpec(names: ["--offline"], kind: .flag,
                       help: "Never use the network: serve stored responses however stale, 504 for the rest."),
            OptionSpec(names: ["--max-stale"], kind: .value(name: "duration"),
                       help: "When the network fails, serve entries stale by at most this much (e.g. 7d)."),
            OptionSpec(names: ["--flush-hits"], kind: .value(name: "duration"),
                       help: "How often hit counts reach the store while serving, for inspect and eviction (1ms "
                           + "to 1d).",
                       defaultValue: "10s"),
            OptionSpec(names: ["--log-flush"], kind: .value(name: "duration"),
                       help: "The longest an access-log line waits to be written with others (e.g. 250ms); 0: none.",
                       defaultValue: "100ms"),
            OptionSpec(names: ["--memory-cache"], kind: .value(name: "size"),
                       help: "Keep fresh answers up to this many body bytes in memory (e.g. 256MiB); 0: none.",
                       defaultValue: "64MiB"),
        ] + ServeAdmissionOptions.options + CommonOptions.store + CommonOptions.network + CommonOptions.identity
            + CommonOptions.logging
    )

    static let view = CommandSpec(
        name: "view",
        abstract: "Show a stored page in Chromium, offline: in a window, or captured as PNG or PDF.",
        discussion: """
            Without --screenshot or --pdf the page opens in a window on the display (DISPLAY or \
            WAYLAND_DISPLAY), and the pages it links to can be followed there; the command ends when the \
            window is closed. Every request the page makes, its scripts' included, is answered from the \
            store only, however stale; what the store does not hold gets a 504 and is listed at the end. Entries marked no-cache \
            are served as stored, since offline there is no origin to revalidate with; private entries are \
            served only to the user they belong to (the same --instance, --user and token option as the \
            preload). Exits 1 when the page itself is not in the store.
            """,
        arguments: [ArgumentSpec(name: "url", help: "The page; relative to --instance if not absolute.")],
        options: [
            OptionSpec(names: ["--screenshot"], kind: .value(name: "file"), help: "Write a PNG of the viewport here."),
            OptionSpec(names: ["--pdf"], kind: .value(name: "file"), help: "Write the page printed to PDF here."),
        ] + PreloadScopeOptions.renderSpecs + PreloadScopeOptions.deviceSpecs
            + CommonOptions.store + [CommonOptions.userAgent] + CommonOptions.identity + CommonOptions.logging
    )

    static let all: [CommandSpec] = [
        get, preload, refresh, inspect, prune, pin, verify, salvage, export, `import`, merge, logout, serve, view,
    ]
}
