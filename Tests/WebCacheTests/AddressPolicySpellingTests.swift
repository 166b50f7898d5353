import Foundation
import Testing

@testable import WebCache

/// `localhost.` (with the root's empty label) is the same host as `localhost`, and a zone does not
/// hide a link-local IPv6 address.
struct AddressPolicySpellingTests {
    @Test(arguments: ["localhost.", "LOCALHOST.", "api.localhost.", "127.0.0.1.", "[::1]", "[fe80::1%25nosuchif]",
                      "[fe80::1%25lo]"])
    func aTrailingDotDoesNotHideAPrivateHost(host: String) throws {
        let target = try #require(URL(string: "http://\(host)/secret"))
        let page = try #require(URL(string: "http://8.8.8.8/page.html"))
        #expect(!AddressPolicy().allows(target, from: page))
    }

    @Test func aPublicHostStaysPublic() throws {
        #expect(!AddressPolicy().isPrivate(host: "8.8.8.8."))
    }
}
