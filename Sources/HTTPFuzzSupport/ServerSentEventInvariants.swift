import Foundation
import SluiceCore

/// What must hold for every event stream: the events, the last event ID and the reconnection time are the same
/// whole and in chunks cut anywhere; each event, written back as text, reads as the same event; and a line or an
/// event past its limit fails with an error naming its line.
package enum ServerSentEventInvariants {
    /// Tight limits, so that short inputs reach them.
    package static let maximumLineLength = 128
    package static let maximumEventSize = 256

    /// Reads an input's payload whole, then in its chunks, and compares.
    ///
    /// - Parameter input: The fuzzer's input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in input: ChunkedInput) async -> String? {
        let whole = await read([input.payload])
        if let problem = whole.problem {
            return problem
        }
        let chunked = await read(input.chunks)
        guard whole == chunked else {
            return "read whole: \(whole)\nread in chunks cut at \(input.cuts): \(chunked)"
        }
        for event in whole.events {
            let again = await read([Array(event.encoded.utf8)], limited: false)
            guard again.events == [event], again.failure == nil else {
                return "the event \(event) written as \(event.encoded.debugDescription) reads as \(again)"
            }
        }
        return nil
    }

    /// The events, where the stream stood at its end, and the error that ended it, as text.
    struct Reading: Equatable, CustomStringConvertible {
        var events: [ServerSentEvent] = []
        var lastEventID = ""
        var retry: Duration?
        var failure: String?
        /// A broken invariant seen while reading; not compared.
        var problem: String?

        static func == (lhs: Reading, rhs: Reading) -> Bool {
            lhs.events == rhs.events && lhs.lastEventID == rhs.lastEventID && lhs.retry == rhs.retry
                && lhs.failure == rhs.failure
        }

        var description: String {
            "\(events), last event ID \(lastEventID.debugDescription), retry \(retry.map(String.init(describing:)) ?? "none")"
                + (failure.map { ", failed: \($0)" } ?? "")
        }
    }

    static func read(_ chunks: [[UInt8]], limited: Bool = true) async -> Reading {
        var reading = Reading()
        let sequence = ChunkedInput.stream(of: chunks).decodingServerSentEvents(
            maximumLineLength: limited ? maximumLineLength : 1 << 20,
            maximumEventSize: limited ? maximumEventSize : 1 << 20
        )
        var iterator = sequence.makeAsyncIterator()
        do {
            while let event = try await iterator.next() {
                reading.events.append(event)
            }
        } catch let error as StreamParseError {
            let described = error.description
            reading.failure = "\(error.code) at line \(error.line)"
            if described.isEmpty || !described.contains("stream line \(error.line)")
                || ![StreamParseError.Code.lineTooLong, .eventTooLarge].contains(error.code)
            {
                reading.problem = "an error that does not say where: \(described)"
            }
        } catch {
            reading.failure = "\(error)"
            reading.problem = "an error of an unexpected type: \(error)"
        }
        reading.lastEventID = iterator.lastEventID
        reading.retry = iterator.retry
        return reading
    }
}
