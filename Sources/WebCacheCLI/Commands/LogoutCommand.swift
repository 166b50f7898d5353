import CacheStore
import FoundationEssentials
import WebCache

/// `webcache logout`: for the signed-in identity the options prove (`--instance` and a token option,
/// with `--whoami` or `--user` as other commands take them; see `docs/identity.md`), drops its tokens and cookies and deletes its partition's entries in one transaction.
///
/// Without a token option there is no signed-in user: the command says so and exits 0, changing nothing
/// (guest entries are shared, not private; `prune --partition guest` removes them).
enum LogoutCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        var configuration = try context.makeConfiguration()
        guard configuration.authorization != nil else {
            context.stdout.write(
                "Not signed in: without --token-command, --token-file or --jwt-command there is no user to log out. "
                    + "Nothing was removed; guest entries stay "
                    + "(remove them with 'webcache prune --partition guest').\n")
            return ExitCode.success
        }
        // The partition of the identity these credentials prove, as every other command finds it: from
        // what the store recorded for them when it holds that (with --whoami), so that a sign-out
        // needs neither the instance nor a token; online otherwise.
        let binding: (source: String, key: String)?
        do {
            binding = try await context.resolveIdentity(of: &configuration, online: false)
        } catch is CLIError {
            binding = try await context.resolveIdentity(of: &configuration, online: true)
        }
        let user = configuration.userID ?? ""
        guard context.storeExists else {
            // A kept session may outlive its store: it is dropped all the same.
            try WebCache.removeSavedCookies(storePath: context.storePath, userID: user)
            context.stdout.write(
                "Logged out: there is no store at '\(context.storePath)', so no entries were removed; "
                    + "the session's cookies were dropped.\n")
            return ExitCode.success
        }
        return try await context.withCache(configuration: configuration, binding: binding) { cache in
            let partition = cache.partition
            let stored = try await cache.store.statistics().partitions.first { $0.name == partition }
            try await cache.logout()
            let count = stored?.entryCount ?? 0
            let noun = count == 1 ? "entry" : "entries"
            let bytes = ValueParsers.formatBytes(stored?.entryBytes ?? 0)
            context.stdout.write(
                "Logged out: removed \(count) \(noun) (\(bytes)) "
                    + "of partition \(partition), and dropped its tokens and cookies.\n")
            return ExitCode.success
        }
    }
}
