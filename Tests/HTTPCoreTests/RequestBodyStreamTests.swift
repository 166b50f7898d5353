import Foundation
import HTTPCore
import Testing

@Suite(.timeLimit(.minutes(5)))
struct RequestBodyStreamTests {
    @Test func bytesComeOutInOrderThenTheEnd() async throws {
        let stream = RequestBodyStream(length: 6)
        let told = await withCheckedContinuation { continuation in
            stream.whenReadable { continuation.resume(returning: true) }
            stream.write(Data("abc".utf8))
        }
        stream.write(Data("def".utf8))
        stream.finish()
        var buffer = [UInt8](repeating: 0, count: 4)
        var received = Data()
        while case .bytes(let count) = buffer.withUnsafeMutableBytes({ stream.read(into: $0) }) {
            received.append(contentsOf: buffer[..<count])
        }
        #expect(told)
        #expect(received == Data("abcdef".utf8))
        #expect(buffer.withUnsafeMutableBytes { stream.read(into: $0) } == .end)
    }

    @Test func aFullBufferHoldsTheProducerUntilTheConsumerCancels() async throws {
        let stream = RequestBodyStream(capacity: 4)
        #expect(stream.write(Data(count: 4)))
        // The buffer is full: this write waits (unless the cancel comes first) and reports the cancel.
        let accepted = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: stream.write(Data(count: 1))) }.start()
            stream.cancel()
        }
        #expect(!accepted)
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(buffer.withUnsafeMutableBytes { stream.read(into: $0) } == .failed)
        await #expect(throws: RequestBodyStream.Failure.self) { _ = try await stream.collect() }
    }

    @Test func collectGathersWhatAProducerThreadWrites() async throws {
        let stream = RequestBodyStream(capacity: 16)
        Thread {
            for byte in 0..<100 { stream.write(Data([UInt8(byte)])) }
            stream.finish()
        }.start()
        #expect(try await stream.collect() == Data((0..<100).map(UInt8.init)))
    }
}
