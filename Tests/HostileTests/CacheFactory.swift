import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Testing
import Transport
import WebCache

/// Makes ``WebCache`` instances on a store in a temporary folder, with short network timeouts.
struct CacheFactory {
    let folder: TemporaryFolder
    let storePath: String

    init() throws {
        folder = try TemporaryFolder()
        storePath = folder.path("store.sqlite")
    }

    /// A cache as a guest (or as `user` with a fixed token), with a one-second idle timeout.
    func make(
        instance: URL? = nil, user: String? = nil, token: String = "token-of-the-user",
        configure: (inout WebCache.Configuration) -> Void = { _ in }
    ) throws -> WebCache {
        var configuration = WebCache.Configuration(environment: ["HOME": folder.url.path])
        configuration.storePath = storePath
        configuration.instanceURL = instance
        configuration.transportConfiguration.idleTimeout = .seconds(1)
        configuration.transportConfiguration.connectTimeout = .seconds(2)
        configuration.transportConfiguration.proxy = ""
        if let user {
            configuration.userID = user
            configuration.authorization = StaticTokenProvider(accessToken: token)
        }
        configure(&configuration)
        return try WebCache(configuration: configuration)
    }
}
