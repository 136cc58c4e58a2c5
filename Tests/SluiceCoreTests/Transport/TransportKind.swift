import Foundation
import SluiceCore
import Testing

/// The transports the transport suites run against: URLSession's and Sluice's own.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case sockets

    var testDescription: String { rawValue }

    /// A performer of this kind with room for fifty connections to one host and the given limits.
    ///
    /// - Parameters:
    ///   - maximumBodySize: The largest buffered body.
    ///   - streamBufferLimit: For URLSession, the most bytes held for a reader that is behind; for the sockets, the
    ///     bytes read ahead of it.
    /// - Returns: The performer.
    func makePerformer(maximumBodySize: Int = 64 << 20, streamBufferLimit: Int = 64 << 20) -> any RequestPerformer {
        switch self {
        case .urlSession:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 50
            return NetworkRequestPerformer(
                configuration: configuration,
                maximumBodySize: maximumBodySize,
                streamBufferLimit: streamBufferLimit
            )
        case .sockets:
            return SocketRequestPerformer(
                configuration: SocketRequestPerformer.Configuration(
                    maximumConnectionsPerOrigin: 50,
                    maximumBodySize: maximumBodySize,
                    streamReadAhead: min(streamBufferLimit, 256 << 10),
                    // A jar of its own, as URLSession's ephemeral configuration has: the shared one would carry the
                    // cookies of one test's server to every other server on 127.0.0.1.
                    cookieStorage: URLSessionConfiguration.ephemeral.httpCookieStorage
                )
            )
        }
    }
}

/// The requests a performer is carrying: URLSession's tasks not yet ended, or Sluice's own connections carrying one.
///
/// - Parameter performer: A performer made by ``TransportKind/makePerformer(maximumBodySize:streamBufferLimit:)``.
/// - Returns: The count; 0 when nothing is left behind.
func requestsInFlight(_ performer: any RequestPerformer) -> Int {
    requestsInFlightGauge(performer).value
}

/// The gauge that counts ``requestsInFlight(_:)``, to await.
///
/// - Parameter performer: A performer made by ``TransportKind/makePerformer(maximumBodySize:streamBufferLimit:)``.
/// - Returns: The performer's gauge; for any other performer, one that stays at 0.
func requestsInFlightGauge(_ performer: any RequestPerformer) -> Gauge {
    if let performer = performer as? NetworkRequestPerformer {
        return performer.requestsInFlightGauge
    }
    if let performer = performer as? SocketRequestPerformer {
        return performer.requestsInFlightGauge
    }
    return Gauge()
}
