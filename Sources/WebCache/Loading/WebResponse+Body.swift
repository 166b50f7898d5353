import FoundationEssentials
import Transport

extension WebResponse {
    /// A response body delivered in chunks as they become available, from the network or the store.
    ///
    /// Single pass: iterate it once. Stopping early (breaking out of the loop, or dropping the body)
    /// cancels a network transfer and leaves nothing partial in the store.
    public struct Body: AsyncSequence, Sendable {
        /// One chunk of the body.
        public typealias Element = Data

        /// Where the chunks come from: a body held in memory is handed out without an async call
        /// through a closure (a hit's body is read with its entry, and each such call cost it an
        /// allocation of the task's).
        fileprivate enum Source: Sendable {
            case held(ChunkOnce)
            case pulled(@Sendable () async throws -> Data?)
        }

        private let source: Source
        /// For a body still arriving from the network: runs an action once it has been received.
        private let network: Transport.ResponseBody?

        /// A body whose chunks come from `pull`, which returns `nil` at the end; `network` is the
        /// transfer they come from, if any.
        init(pull: @escaping @Sendable () async throws -> Data?, network: Transport.ResponseBody? = nil) {
            self.source = .pulled(pull)
            self.network = network
        }

        /// A body already held in memory.
        public init(data: Data) {
            self.source = .held(ChunkOnce(data))
            self.network = nil
        }

        /// Runs `action` once no more of the body has to cross the network: when the transfer has
        /// received it all (not necessarily read), or at once for a body from the store or memory;
        /// never if the transfer fails.
        func whenReceived(_ action: @escaping @Sendable () -> Void) {
            guard let network else { return action() }
            network.whenReceived(action)
        }

        /// An iterator over the chunks; the body is single pass.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(source: source)
        }

        /// Reads the whole body into memory.
        /// - Parameter limit: the most bytes to accept.
        /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/tooLarge`` past `limit`, or what reading throws.
        public func collect(upTo limit: Int = .max) async throws -> Data {
            if case .held(let chunk) = source {
                let data = chunk.take() ?? Data()
                guard data.count <= limit else { throw Self.tooLarge(limit) }
                return data
            }
            var data = Data()
            for try await chunk in self {
                guard data.count + chunk.count <= limit else { throw Self.tooLarge(limit) }
                // The first chunk is taken as it is: a body of one chunk (a stored body read at
                // once) is not copied again.
                if data.isEmpty { data = chunk } else { data.append(chunk) }
            }
            return data
        }

        private static func tooLarge(_ limit: Int) -> WebCacheError {
            WebCacheError(.tooLarge, "The response body is larger than \(limit) bytes.")
        }

        /// Pulls the next chunk; `nil` at the end.
        public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
            fileprivate let source: Source

            /// The next chunk, or `nil` at the end.
            /// - Throws: ``WebCacheError`` when the transfer or the store read fails.
            public mutating func next() async throws -> Data? {
                switch source {
                case .held(let chunk): chunk.take()
                case .pulled(let pull): try await pull()
                }
            }
        }
    }
}
