import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The header fields of entries one connection read lately, decoded once.
///
/// Hits read the same few entries again and again, and decoding an entry's stored fields (a string
/// for each name and value) cost a tenth of a hit. Kept in a few slots by entry id; a slot is used
/// only when the row's stored text still holds the same bytes as when it was decoded (compared with
/// `memcmp`, a few dozen instructions), so an entry replaced or updated since is decoded again. The
/// decoded headers handed out share their storage, and their arrays compare equal by identity.
final class DecodedHeaderCache {
    private struct Slot {
        let id: Int64
        let text: [UInt8]
        let headers: HTTPHeaders
    }

    /// Slots, each for the ids equal to its index modulo their count.
    private static let slotCount = 64
    private var slots = [Slot?](repeating: nil, count: slotCount)

    /// The headers of entry `id` stored as `text` (``HeaderCoding``), decoded now or kept from before.
    func headers(id: Int64, text: UnsafeBufferPointer<UInt8>) -> HTTPHeaders {
        let index = Int(UInt64(bitPattern: id) % UInt64(Self.slotCount))
        if let slot = slots[index], slot.id == id, slot.text.count == text.count,
            slot.text.withUnsafeBufferPointer({ kept in
                text.count == 0 || memcmp(kept.baseAddress!, text.baseAddress!, text.count) == 0
            })
        {
            return slot.headers
        }
        let headers = HeaderCoding.decode(bytes: text)
        slots[index] = Slot(id: id, text: Array(text), headers: headers)
        return headers
    }
}
