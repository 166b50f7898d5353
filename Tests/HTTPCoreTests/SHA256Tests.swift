import Foundation
import Testing

@testable import HTTPCore

struct SHA256Tests {
    private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    // FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA256ShortMsg"/"LongMsg") and the empty message.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func matchesStandardVectors(message: String, digest: String) {
        #expect(hex(SHA256.hash(Data(message.utf8))) == digest)
    }

    @Test func hashesOneMillionAs() {
        #expect(
            hex(SHA256.hash(Data(repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        )
    }

    @Test func incrementalUpdatesMatchOneShot() {
        let message = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 3) })
        for split in [0, 1, 55, 56, 63, 64, 65, 500, 999, 1_000] {
            var hasher = SHA256()
            hasher.update(message.prefix(split))
            hasher.update(message.dropFirst(split))
            #expect(hasher.finalize() == SHA256.hash(message), "split at \(split)")
        }
    }

    @Test func copiesHashOnIndependently() {
        var first = SHA256()
        first.update(Data("ab".utf8))
        var second = first
        second.update(Data("c".utf8))
        #expect(hex(second.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(first.finalize() == SHA256.hash(Data("ab".utf8)))
        first.update(Data("c".utf8))
        #expect(first.finalize() == second.finalize())
        #expect(first.finalize() == first.finalize(), "finalize leaves the hasher unchanged")
    }
}
