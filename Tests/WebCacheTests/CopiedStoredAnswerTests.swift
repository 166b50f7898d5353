import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import WebCache

/// A stored answer asked for with `copyingBody` carries the body of a lone fresh variant of one
/// chunk already copied from the store, in the read that found the entry; everything else is
/// answered as without it: the same head, a body left in the store, or no answer at all.
struct CopiedStoredAnswerTests {
    @Test func aLoneFreshVariantOfOneChunkComesWithItsBodyCopied() async throws {
        try await withCache(origin: { _ in
            .text("copied hello", headers: ["Cache-Control": "max-age=600", "ETag": "\"c1\""])
        }) { (_, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))

            let copied = try #require(cache.storedAnswer(for: WebRequest("page"), copyingBody: true))
            let plain = try #require(cache.storedAnswer(for: WebRequest("page")))

            guard case .copied(let body) = copied.body else {
                Issue.record("The body was not copied: \(copied.body)")
                return
            }
            #expect(String(decoding: body.bytes, as: UTF8.self) == "copied hello")
            guard case .stored(_, let size) = plain.body else {
                Issue.record("The body was not left in the store: \(plain.body)")
                return
            }
            #expect(size == Int64(body.count))
            #expect(copied.headers == plain.headers)
            #expect(copied.status == plain.status && copied.source == .hit)
        }
    }

    @Test func aTakenCopyBelongsToTheCaller() async throws {
        try await withCache(origin: { _ in .text("taken", headers: ["Cache-Control": "max-age=600"]) }) {
            (_, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))
            let answer = try #require(cache.storedAnswer(for: WebRequest("page"), copyingBody: true))
            guard case .copied(let body) = answer.body else {
                Issue.record("The body was not copied: \(answer.body)")
                return
            }

            let memory = try #require(body.take())
            defer { free(memory) }

            #expect(body.take() == nil)
            #expect(String(decoding: UnsafeRawBufferPointer(start: memory, count: body.count), as: UTF8.self) == "taken")
        }
    }

    @Test func severalVariantsHeadAndLargeBodiesAreNotCopied() async throws {
        let large = Data(repeating: 7, count: CacheStore.chunkSize + 1)
        try await withCache(origin: { request in
            if request.path == "/large" {
                return OriginResponse(status: 200, headers: ["Cache-Control": "max-age=600"], body: .bytes(large))
            }
            return .text("lang \(request.headers["Accept-Language"] ?? "none")",
                         headers: ["Cache-Control": "max-age=600", "Vary": "Accept-Language"])
        }) { (_, cache) async throws in
            for language in ["de", "fr"] {
                _ = try await cache.data(for: WebRequest("varied", headers: ["Accept-Language": language]))
            }
            _ = try await cache.data(for: WebRequest("large"))

            let varied = cache.storedAnswer(for: WebRequest("varied", headers: ["Accept-Language": "fr"]),
                                            copyingBody: true)
            let head = cache.storedAnswer(for: WebRequest("large", method: .head), copyingBody: true)
            let largeAnswer = cache.storedAnswer(for: WebRequest("large"), copyingBody: true)

            guard case .stored = varied?.body, case StoredAnswer.Body.none? = head?.body,
                case .stored(_, let size) = largeAnswer?.body
            else {
                let found = [varied?.body, head?.body, largeAnswer?.body].map { String(describing: $0) }
                Issue.record("Expected bodies left in the store: \(found)")
                return
            }
            #expect(size == Int64(large.count))
        }
    }

    @Test func aRequestThatWillNotTakeTheStoredCopyGetsNoAnswer() async throws {
        try await withCache(origin: { _ in .text("fresh", headers: ["Cache-Control": "max-age=600"]) }) {
            (_, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))

            let answer = cache.storedAnswer(for: WebRequest("page", headers: ["Cache-Control": "no-cache"]),
                                            copyingBody: true)

            #expect(answer?.status == nil)
        }
    }
}
