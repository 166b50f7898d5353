import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import WebCache

/// ``WebCache/instanceUserID(at:field:configuration:)`` against an instance on 127.0.0.1 that answers
/// its who-am-I resource with a JSON body of its own.
@Suite struct InstanceUserIDTests {
    /// The id the instance answers with, read through a signed-in session.
    private func userID(answering json: String, field: String) async throws -> String {
        var id = ""
        try await withInstance { fixture in
            fixture.override.value = { request in
                guard request.path == "/api/me" else { return nil }
                return OriginResponse(headers: ["Content-Type": "application/json"], body: .bytes(Data(json.utf8)))
            }
            var configuration = WebCache.Configuration(environment: [:])
            configuration.instanceURL = fixture.origin.baseURL
            configuration.authorization = fixture.provider(for: "alice")
            id = try await WebCache.instanceUserID(
                at: fixture.origin.url("api/me"), field: field, configuration: configuration)
        }
        return id
    }

    @Test func aNumericIdAboveTwoToTheFiftyThirdKeepsEveryDigit() async throws {
        // 2^53 + 1 has no Double of its own: read as one, it came back as ...992.
        #expect(try await userID(answering: #"{"result":{"id":9007199254740993}}"#, field: "result.id")
            == "9007199254740993")
        #expect(try await userID(answering: #"{"id":-9223372036854775808}"#, field: "id") == "-9223372036854775808")
    }

    @Test func aWholeNumberWrittenWithAFractionOrExponentIsStillAnInteger() async throws {
        #expect(try await userID(answering: #"{"id":42.0}"#, field: "id") == "42")
        #expect(try await userID(answering: #"{"id":4.2e1}"#, field: "id") == "42")
        #expect(try await userID(answering: #"{"id":"u-42"}"#, field: "id") == "u-42")
    }

    @Test func anIdThatIsNoWholeNumberIsTakenAsWritten() async throws {
        #expect(try await userID(answering: #"{"id":1.5}"#, field: "id") == "1.5")
    }
}
