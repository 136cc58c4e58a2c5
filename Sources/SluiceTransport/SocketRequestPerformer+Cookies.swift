import Foundation

// HTTPCookieStorage and URLSessionConfiguration are FoundationNetworking's on Linux.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SocketRequestPerformer.Configuration {
    /// Where a ``SocketRequestPerformer`` keeps the cookies its responses set: in a store of its own by default, in
    /// one you share, or nowhere.
    ///
    /// A cookie is a credential: a session cookie one server set for one user is that user's session. So each
    /// performer keeps its cookies to itself unless told otherwise, as URLSession's ephemeral sessions do, and two
    /// clients in one process, such as a server's clients for two of its users, never see each other's:
    ///
    /// ```swift
    /// let alice = APIClient(requestPerformer: SocketRequestPerformer())  // a store of its own
    /// let shared = SocketRequestPerformer(configuration: .init(cookies: .shared))  // HTTPCookieStorage.shared
    /// let none = SocketRequestPerformer(configuration: .init(cookies: .disabled))
    /// ```
    ///
    /// The choice is made when a performer is made, not when the configuration is: two performers made from one
    /// configuration of ``perPerformer`` have a store each. Read a performer's store from
    /// ``SocketRequestPerformer/cookieStorage``.
    public struct Cookies: Sendable {
        /// Where the cookies go.
        private enum Place: Sendable {
            case perPerformer
            case storage(HTTPCookieStorage)
            case disabled
        }

        private let place: Place

        /// A store of each performer's own, in memory, made with the performer and gone with it; the default.
        ///
        /// What one performer's responses set, only its own requests are sent.
        ///
        /// It is the store of a new `URLSessionConfiguration.ephemeral`, the one in-memory `HTTPCookieStorage` that
        /// Foundation makes on every platform (the type has no public initializer), and the performer's default
        /// fallback keeps its cookies in it too.
        public static let perPerformer = Cookies(place: .perPerformer)

        /// No store: no cookie a response sets is kept, and a request is sent only the cookies of its own `Cookie`
        /// field.
        public static let disabled = Cookies(place: .disabled)

        /// `HTTPCookieStorage.shared`, the process's store, shared with every performer and URLSession given it.
        ///
        /// On Linux, FoundationNetworking also writes its persistent cookies to a file of the user's, and reads them
        /// back in the next run.
        public static var shared: Cookies { .stored(in: .shared) }

        /// A store of yours, shared with every performer and URLSession given it.
        ///
        /// - Parameter storage: The store.
        /// - Returns: The choice.
        public static func stored(in storage: HTTPCookieStorage) -> Cookies {
            Cookies(place: .storage(storage))
        }

        /// The store for a performer being made: a new one, the one given, or none.
        func storageForNewPerformer() -> HTTPCookieStorage? {
            switch place {
            case .perPerformer: URLSessionConfiguration.ephemeral.httpCookieStorage
            case .storage(let storage): storage
            case .disabled: nil
            }
        }
    }
}

extension URLSessionConfiguration {
    /// An ephemeral configuration whose sessions keep cookies in a given store, or keep none: the default fallback's,
    /// so that what a ``SocketRequestPerformer`` hands to URLSession sends and stores the performer's own cookies.
    ///
    /// - Parameter storage: The store; `nil` for none.
    /// - Returns: The configuration.
    static func ephemeral(keepingCookiesIn storage: HTTPCookieStorage?) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = storage
        configuration.httpShouldSetCookies = storage != nil
        return configuration
    }
}
