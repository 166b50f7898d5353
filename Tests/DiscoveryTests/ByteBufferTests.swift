import Testing

@testable import Discovery

/// A ``ByteBuffer`` emptied by its count holds what was appended since, whatever it held before.
@Suite struct ByteBufferTests {
    @Test func holdsWhatWasAppendedSinceItWasEmptied() {
        var buffer = ByteBuffer()
        var model: [UInt8] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        for step in 0..<2_000 {
            switch next(10) {
            case 0:
                buffer.removeAll()
                model.removeAll()
            case 1 where !model.isEmpty:
                buffer.removeLast()
                model.removeLast()
            case 1, 2, 3, 4:
                let bytes = (0..<next(40)).map { _ in UInt8(next(256)) }
                if step.isMultiple(of: 2) {
                    buffer.append(contentsOf: bytes)
                } else {
                    bytes.withUnsafeBufferPointer { buffer.append(contentsOf: $0) }
                }
                model.append(contentsOf: bytes)
            default:
                let byte = UInt8(next(256))
                buffer.append(byte)
                model.append(byte)
            }
            #expect(buffer.count == model.count && buffer.isEmpty == model.isEmpty && buffer.last == model.last)
            #expect(Array(buffer.bytes) == model && buffer.bytes.startIndex == 0)
            #expect(buffer.withUnsafeBufferPointer(Array.init) == model, "step \(step)")
        }
    }

    @Test func appendsOverOldBytesAndBeyondThem() {
        var buffer = ByteBuffer()
        buffer.append(contentsOf: Array("abcdef".utf8))
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.withUnsafeBufferPointer(Array.init) == [])
        #expect(String(reflecting: buffer) == String(reflecting: ByteBuffer()), "an emptied buffer reads as a new one")
        buffer.append(UInt8(ascii: "x"))
        buffer.append(contentsOf: Array("yz0123".utf8))
        #expect(buffer.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } == "xyz0123")
    }
}
