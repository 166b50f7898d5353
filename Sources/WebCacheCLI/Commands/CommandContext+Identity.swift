import CacheStore
import FoundationEssentials
import Sessions
import WebCache

/// Which partition a signed-in command reads and writes: the one of the identity its credentials
/// prove (see `docs/identity.md`).
///
/// - `--whoami <url>`: online, the instance names the user (the id at `--whoami-field` in its JSON
///   answer), and the store records that these credentials belong to that user; offline, that record
///   is the proof, so the partition can be read with the same credential source only.
/// - `--jwt-command`: the `sub` claim of the JWT (which the instance checks when it is exchanged).
/// - Otherwise the credential source itself: a digest of the token command, the token file's path or
///   the JWT command with the client id.
///
/// `--user` never names a partition by itself: with an identity the instance names it must be that
/// identity, and with a credential source it names a partition of that source's own.
extension CommandContext {
    /// The credential source the options give, or `nil` for a guest.
    func credentialSource() -> CredentialSource? {
        if let command = arguments.value("token-command") { return .tokenCommand(command) }
        if let file = arguments.value("token-file") {
            return .tokenFile(path: URL(fileURLWithPath: file).standardizedFileURL.path)
        }
        if let command = arguments.value("jwt-command") {
            return .jwtCommand(command, clientID: arguments.value("client-id"))
        }
        return nil
    }

    /// Sets `configuration.userID` to the key of the identity the credentials prove; for a guest,
    /// checks that no option asks for a signed-in partition.
    ///
    /// - Parameter online: whether the command may ask the instance (`false` for cache-only reads
    ///   and an offline gateway, which then need what an online run recorded).
    /// - Returns: the credential source's digest and the key to record in the store once it is open,
    ///   when the instance named the user just now.
    /// - Throws: ``UsageError`` for `--user` or `--whoami` without credentials; ``CLIError`` when the
    ///   instance names another user than `--user`, or nothing proves an identity offline.
    func resolveIdentity(of configuration: inout WebCache.Configuration, online: Bool) async throws
        -> (source: String, key: String)?
    {
        guard let source = credentialSource(), let instance = configuration.instanceURL else {
            for option in ["user", "whoami"] where arguments.value(option) != nil {
                throw UsageError("--\(option) needs --token-command, --token-file or --jwt-command: only signed-in "
                                 + "users have a partition of their own", command: arguments.spec)
            }
            return nil
        }
        let user = arguments.value("user")
        let digest = source.digest(instance: instance)
        if let whoami = arguments.value("whoami") {
            // Resolved as a page's URL is: against the instance's root, a path without `/` as a folder.
            let url = try arguments.requestURL(whoami, for: "--whoami <url>")
            let field = arguments.value("whoami-field") ?? "sub"
            if online {
                // The user these credentials were found to be before, whose kept session the question
                // starts from; the session it ends with is the one the command carries on.
                let known = try await boundIdentity(source: digest)
                configuration.userID = known
                let answer = try await WebCache.instanceUser(at: url, field: field, configuration: configuration)
                let key = try checked(user, against: answer.id, instance: instance)
                // Another user's session is not handed over: the credentials now belong to someone else.
                configuration.sessionCookies = known == nil || known == key ? answer.cookies : nil
                configuration.userID = key
                return (digest, key)
            }
            guard let key = try await boundIdentity(source: digest) else {
                throw CLIError("No user is known for these credentials at \(instance.absoluteString) in the store "
                               + "'\(storePath)': run a command online with the same credentials and --whoami first, "
                               + "so that the instance says who they belong to.")
            }
            if let user, key != IdentityKey.instanceUser(user, instance: instance) {
                throw CLIError("--user '\(user)' is not the user these credentials were found to belong to.")
            }
            configuration.userID = key
            return nil
        }
        if let jwt = configuration.authorization as? JWTBearerProvider, let subject = try await jwt.assertionSubject() {
            configuration.userID = try checked(user, against: subject, instance: instance)
            return nil
        }
        configuration.userID = IdentityKey.credential(source, instance: instance, name: user)
        return nil
    }

    /// The key of `id`, after checking that `user`, if given, names the same user.
    private func checked(_ user: String?, against id: String, instance: URL) throws -> String {
        if let user, user != id {
            throw CLIError("--user '\(user)' does not match the user the instance names for these credentials "
                           + "('\(id)'); leave --user out, or use that user's credentials.")
        }
        return IdentityKey.instanceUser(id, instance: instance)
    }

    /// What the store recorded for the credential source `digest`; `nil` without a store.
    private func boundIdentity(source digest: String) async throws -> String? {
        guard storeExists else { return nil }
        var configuration = CacheStore.Configuration()
        configuration.readOnly = true
        do {
            let store = try CacheStore(path: storePath, configuration: configuration)
            return try await store.closing { try $0.boundIdentity(source: digest) }
        } catch {
            throw CLIError("The store at '\(storePath)' cannot be read: \(CLIError.describe(error))")
        }
    }
}
