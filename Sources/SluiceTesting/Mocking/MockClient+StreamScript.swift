public import Foundation
public import SluiceCore

extension MockClient {
    /// A scripted streamed response for tests: a head, then chunks with pauses between them, ending normally or with a
    /// failure mid-stream.
    ///
    /// A ``MockClient`` stub answers with one through ``MockClient/Response/stream(_:)``, and a ``StubPerformer`` made with
    /// ``StubPerformer/init(streaming:)`` plays one for every request:
    ///
    /// ```swift
    /// let feed = MockClient.StreamScript.events(
    ///     [ServerSentEvent(data: "first"), ServerSentEvent(type: "done", data: "")],
    ///     every: .milliseconds(10)
    /// )
    /// mock.stub(PriceFeed.self, .stream(feed))
    /// ```
    ///
    /// Each play of the script is a new body. Pauses are waited on the script's clock, so a test that passes a
    /// `TestClock` decides when each chunk arrives; cancelling the reader, or dropping the body, ends the play.
    public struct StreamScript: Sendable {
        /// One step of the script.
        public enum Part: Sendable {
            /// Bytes of the body.
            case bytes(Data)
            /// A wait before the next step.
            case pause(Duration)
            /// A failure that ends the body here, as a cut connection would.
            case failure(any Error & Sendable)

            /// Text of the body, as UTF-8.
            ///
            /// - Parameter text: The text.
            /// - Returns: The part.
            public static func text(_ text: String) -> Part {
                .bytes(Data(text.utf8))
            }
        }

        /// The response status.
        public var status: HTTPStatus
        /// The response header fields.
        public var headers: HTTPHeaders
        /// The steps of the body, in order.
        public var parts: [Part]
        /// The clock the pauses are waited on.
        public var clock: any Clock<Duration>

        /// Creates a script.
        ///
        /// - Parameters:
        ///   - status: The status; 200 by default.
        ///   - headers: The header fields; none by default.
        ///   - parts: The steps of the body.
        ///   - clock: The clock the pauses are waited on; a `ContinuousClock` by default.
        public init(
            status: HTTPStatus = .ok,
            headers: HTTPHeaders = [:],
            parts: [Part],
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.status = status
            self.headers = headers
            self.parts = parts
            self.clock = clock
        }

        /// A `text/event-stream` of events, with a pause before each but the first.
        ///
        /// - Parameters:
        ///   - events: The events, written as `ServerSentEvent.encoded` gives them.
        ///   - interval: The pause between two events; none by default.
        ///   - failure: A failure that ends the stream after the last event, or `nil` to end it normally.
        ///   - clock: The clock the pauses are waited on; a `ContinuousClock` by default.
        /// - Returns: The script.
        public static func events(
            _ events: [ServerSentEvent],
            every interval: Duration = .zero,
            failingWith failure: (any Error & Sendable)? = nil,
            clock: any Clock<Duration> = ContinuousClock()
        ) -> MockClient.StreamScript {
            var parts: [Part] = []
            for (index, event) in events.enumerated() {
                if index > 0, interval > .zero {
                    parts.append(.pause(interval))
                }
                parts.append(.text(event.encoded))
            }
            if let failure {
                parts.append(.failure(failure))
            }
            return MockClient.StreamScript(
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                parts: parts,
                clock: clock
            )
        }

        /// Plays the script: the head now, the body as a task writes it.
        ///
        /// - Returns: The streamed response.
        public func play() -> HTTPResponse.Streamed {
            let length = parts.contains { if case .failure = $0 { true } else { false } } ? nil : byteCount
            let (body, writer) = HTTPBody.makeStream(expectedLength: length)
            let parts = self.parts
            let clock = self.clock
            let player = Task {
                for part in parts {
                    switch part {
                    case .bytes(let data):
                        writer.write(data)
                    case .pause(let duration):
                        do {
                            try await clock.sleep(for: duration)
                        } catch {
                            writer.finish(throwing: error)
                            return
                        }
                    case .failure(let error):
                        writer.finish(throwing: error)
                        return
                    }
                }
                writer.finish()
            }
            writer.onTermination { _ in player.cancel() }
            var headers = self.headers
            if let length, headers[.contentLength] == nil {
                headers[.contentLength] = String(length)
            }
            return HTTPResponse.Streamed(status: status, headers: headers, body: body)
        }

        /// The bytes of the body.
        private var byteCount: Int64 {
            parts.reduce(0) { total, part in
                if case .bytes(let data) = part { total + Int64(data.count) } else { total }
            }
        }
    }
}
