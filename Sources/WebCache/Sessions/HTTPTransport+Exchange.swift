import FoundationEssentials
import HTTPCore
import Sessions
import Transport

extension JWTBearerProvider {
    /// A provider that exchanges the JWTs `assertionProvider` hands out at the configured token
    /// endpoint, sending the exchange through `transport` (redirects are not followed).
    public init(
        configuration: Configuration, assertionProvider: any AuthorizationProviding, transport: any HTTPTransport
    ) {
        self.init(configuration: configuration, assertionProvider: assertionProvider, exchange: { request in
            let response = try await transport.send(request)
            // Token responses are small JSON documents; a larger answer is not one.
            let body = try await response.body.collect(upTo: 1 << 20)
            return (response.head, body)
        })
    }
}
