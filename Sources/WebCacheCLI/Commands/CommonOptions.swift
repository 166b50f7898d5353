/// Options every subcommand accepts: where the store is, how to reach the network, who the user is,
/// and how much to log. They are left out of usage lines to keep those readable; `--help` lists them.
enum CommonOptions {
    static let store: [OptionSpec] = [
        OptionSpec(names: ["--store"], kind: .value(name: "path"),
                   help: "The store file.", defaultValue: "$XDG_CACHE_HOME/webcache/store.sqlite", showInUsage: false),
    ]

    static let logging: [OptionSpec] = [
        OptionSpec(names: ["--verbose", "-v"], kind: .flag,
                   help: "Log what the cache decides for each URL to standard error (--log-level debug).",
                   showInUsage: false),
        OptionSpec(names: ["--log-level"], kind: .value(name: "level"),
                   help: "Log level: error, warning, info, debug or trace (each request sent), over -v.",
                   defaultValue: "warning", showInUsage: false),
    ]

    static let userAgent = OptionSpec(names: ["--user-agent", "-A"], kind: .value(name: "text"),
                                      help: "The User-Agent to send.", showInUsage: false)

    static let network: [OptionSpec] = [
        OptionSpec(names: ["--header", "-H"], kind: .repeatedValue(name: "name: value"),
                   help: "Send this request header (repeatable); Authorization, Cookie and Proxy-Authorization go "
                       + "to the instance only.",
                   showInUsage: false),
        userAgent,
        OptionSpec(names: ["--cacert"], kind: .value(name: "file"),
                   help: "Trust the CA certificates in this PEM file.", showInUsage: false),
        OptionSpec(names: ["--insecure", "-k"], kind: .flag, help: "Do not verify TLS certificates (unsafe).",
                   showInUsage: false),
        OptionSpec(names: ["--resolve"], kind: .repeatedValue(name: "host:port:addr"),
                   help: "Use this address for host:port (repeatable).", showInUsage: false),
        OptionSpec(names: ["--connect-to"], kind: .repeatedValue(name: "host:port:host2:port2"),
                   help: "Connect to host2:port2 instead of host:port (repeatable).", showInUsage: false),
        OptionSpec(names: ["--proxy", "-x"], kind: .value(name: "url"),
                   help: "Use this proxy (default: from the environment).", showInUsage: false),
        OptionSpec(names: ["--connect-timeout"], kind: .value(name: "duration"),
                   help: "Give up connecting after this long (1ms to 1d; a plain number is seconds).",
                   defaultValue: "10s", showInUsage: false),
    ]

    /// The instance, for the commands that take URLs: relative ones resolve against it.
    static let instance = OptionSpec(names: ["--instance"], kind: .value(name: "url"),
                                     help: "The instance URL; relative URLs resolve against it.", showInUsage: false)

    static let identity: [OptionSpec] = [
        instance,
        OptionSpec(names: ["--token-command"], kind: .value(name: "command"),
                   help: "A command that prints an OAuth access token; run again when a fresh one is needed.",
                   showInUsage: false),
        OptionSpec(names: ["--token-file"], kind: .value(name: "file"),
                   help: "A file that holds an OAuth access token; read again when a fresh one is needed.",
                   showInUsage: false),
        OptionSpec(names: ["--jwt-command"], kind: .value(name: "command"),
                   help: "A command that prints a JWT to exchange at the instance's token endpoint.",
                   showInUsage: false),
        OptionSpec(names: ["--token-endpoint"], kind: .value(name: "url"),
                   help: "Where --jwt-command's JWT is exchanged; relative to --instance.", defaultValue: "oauth/token",
                   showInUsage: false),
        OptionSpec(names: ["--client-id"], kind: .value(name: "id"),
                   help: "The OAuth client id for the exchange; its secret comes from $WEBCACHE_CLIENT_SECRET.",
                   showInUsage: false),
        OptionSpec(names: ["--user"], kind: .value(name: "id"),
                   help: "The user the credentials belong to: checked against the instance's answer, else a partition of "
                       + "these credentials' own.",
                   showInUsage: false),
        OptionSpec(names: ["--whoami"], kind: .value(name: "url"),
                   help: "Ask the instance who the user is (a JSON resource on the instance); names the partition.",
                   showInUsage: false),
        OptionSpec(names: ["--whoami-field"], kind: .value(name: "path"),
                   help: "Where --whoami's answer has the user id (object keys separated by dots).", defaultValue: "sub",
                   showInUsage: false),
        OptionSpec(names: ["--login-path"], kind: .repeatedValue(name: "pattern"),
                   help: "A path that marks the instance's login page, beside /login, /signin and the like "
                       + "(repeatable): a redirect there means the session expired.",
                   showInUsage: false),
        OptionSpec(names: ["--login-host"], kind: .repeatedValue(name: "host"),
                   help: "A host whose every page is a login page, such as an external identity provider "
                       + "(repeatable).",
                   showInUsage: false),
        OptionSpec(names: ["--keep-session"], kind: .flag,
                   help: "Keep the session's cookies beside the store (mode 0600) for the next run.",
                   showInUsage: false),
        OptionSpec(names: ["--guest"], kind: .flag, help: "Send no credentials (the default without a token option).",
                   showInUsage: false),
    ]
}
