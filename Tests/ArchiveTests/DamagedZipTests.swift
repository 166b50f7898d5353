import Foundation
import Testing
import WebCacheTestSupport

@testable import Archive

/// Damaged zip files: lengths that run past what holds them are refused with the offset of the
/// damage (never by stopping the process), and a deflated member damaged part-way gives the records
/// before the damage, one error naming the member, and then its end.
struct DamagedZipTests {
    /// A stored zip file of ``ZipFixture/warc(records:)`` in `folder`, as its path and bytes.
    private func makeZip(in folder: TemporaryFolder) async throws -> (path: String, bytes: Data) {
        let path = folder.path("test.wacz")
        return (path, try await ZipFixture.write(ZipFixture.warc(records: 3), deflated: false, to: path, in: folder))
    }

    /// The name (28), extra-field (30) and comment (32) lengths of the first directory entry.
    @Test(arguments: [28, 30, 32])
    func aDirectoryEntryLongerThanTheDirectoryIsRefusedAtItsOffset(field: Int) async throws {
        let folder = try TemporaryFolder()
        var (path, bytes) = try await makeZip(in: folder)
        let directory = try ZipFixture.directoryOffset(in: bytes)
        ZipFixture.set(UInt16(60_000), at: directory + field, in: &bytes)
        try bytes.write(to: URL(fileURLWithPath: path))

        let error = #expect(throws: ArchiveError.self) { try ZipArchive(path: path) }

        #expect(error?.message(file: "x.wacz") == "x.wacz@\(directory): The zip central directory is damaged.")
    }

    @Test func aSecondDirectoryEntryThatIsDamagedIsNamedByItsOwnOffset() async throws {
        let folder = try TemporaryFolder()
        var (path, bytes) = try await makeZip(in: folder)
        let directory = try ZipFixture.directoryOffset(in: bytes)
        let second = directory + 46 + Int(ZipFixture.littleEndian(UInt16.self, at: directory + 28, in: bytes))
        ZipFixture.set(UInt16(60_000), at: second + 28, in: &bytes)
        try bytes.write(to: URL(fileURLWithPath: path))

        let error = #expect(throws: ArchiveError.self) { try ZipArchive(path: path) }

        #expect(error?.message(file: "x.wacz") == "x.wacz@\(second): The zip central directory is damaged.")
    }

    /// A field of the first member's local header (`local`) or directory entry, and what it is set to.
    struct MemberDamage: Sendable, CustomTestStringConvertible {
        var local: Bool
        var field: Int
        var value: UInt32
        var reason: String
        var testDescription: String { "\(local ? "local header" : "directory entry") field \(field) = \(value)" }
    }

    private static let runsIntoDirectory = "its data would run into the central directory"

    @Test(arguments: [
        // The extra-field length of the local header, which puts the data past the directory.
        MemberDamage(local: true, field: 28, value: 60_000, reason: runsIntoDirectory),
        // The compressed size.
        MemberDamage(local: false, field: 20, value: 0xFFFF_FF00, reason: runsIntoDirectory),
        MemberDamage(local: false, field: 20, value: 0xFFFF_FFFF, reason: "it uses ZIP64, which is not supported"),
        // The general-purpose flags: encrypted.
        MemberDamage(local: true, field: 6, value: 1, reason: "it is encrypted, which is not supported"),
    ])
    func aMemberWhoseHeaderCannotBeTrustedIsRefused(damage: MemberDamage) async throws {
        let folder = try TemporaryFolder()
        var (path, bytes) = try await makeZip(in: folder)
        let offset = damage.local ? damage.field : try ZipFixture.directoryOffset(in: bytes) + damage.field
        if damage.field == 20 {
            ZipFixture.set(damage.value, at: offset, in: &bytes)
        } else {
            ZipFixture.set(UInt16(damage.value), at: offset, in: &bytes)
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        let zip = try ZipArchive(path: path)

        let error = await #expect(throws: ArchiveError.self) { try await zip.contents(of: zip.members[0]) }

        #expect(error?.message(file: "x.wacz") == "x.wacz@0: The zip member 'archive/data.warc' cannot be read: "
            + "\(damage.reason).")
    }

    @Test func aDeflatedMemberDamagedPartWayGivesTheRecordsBeforeTheDamageAndOneError() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("damaged.wacz")
        let count = 400
        try await ZipFixture.writeDamagedDeflate(ZipFixture.warc(records: count), to: path, in: folder)
        let zip = try ZipArchive(path: path)
        let reader = try await WARCReader(source: try await zip.contents(of: zip.members[0]))
        var urls: [String] = []
        var errors: [ArchiveError] = []
        var ended = false

        // A call per record and per error at most: a reader that makes no progress fails here.
        for _ in 0..<(count + 10) {
            do {
                guard let record = try await reader.nextRecord() else {
                    ended = true
                    break
                }
                while try await reader.readBlock() != nil {}
                urls.append(record.header.targetURI ?? "")
            } catch let error as ArchiveError {
                errors.append(error)
            }
        }

        #expect(ended, "the reader did not end: \(errors.count) errors, the last \(errors.last?.description ?? "")")
        #expect(urls.count >= count / 4 && urls.count < count, "\(urls.count) records")
        #expect(urls == (0..<urls.count).map(ZipFixture.url))
        let zipErrors = errors.filter { $0.reason.hasPrefix("The zip member 'archive/data.warc' is damaged") }
        #expect(zipErrors.count == 1, "\(errors)")
        // Damage found inside a record is reported before it, at that record's offset.
        #expect(errors.count <= 2, "\(errors)")
        #expect(errors.last?.offset != nil && errors.last?.offset != 0, "\(errors)")
    }
}
