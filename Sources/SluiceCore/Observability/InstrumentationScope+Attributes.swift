extension InstrumentationScope {
    /// The name of an attribute: OpenTelemetry's stable HTTP client conventions' where they name it, `sluice.…` for
    /// what they do not.
    ///
    /// An open set: compare against the static members, or make your own with ``init(_:)``.
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        /// The attribute's name, such as `http.request.method`.
        public let name: String

        /// Creates a key.
        ///
        /// - Parameter name: The attribute's name.
        public init(_ name: String) {
            self.name = name
        }

        /// The attribute's name.
        public var description: String { name }

        /// `http.request.method`: the method, such as `GET`; `_OTHER` for a method the conventions do not list.
        public static let httpRequestMethod = Key("http.request.method")
        /// `http.request.method_original`: the method as sent, where ``httpRequestMethod`` is `_OTHER`.
        public static let httpRequestMethodOriginal = Key("http.request.method_original")
        /// `server.address`: the host the request is for.
        public static let serverAddress = Key("server.address")
        /// `server.port`: the port the request is for, the scheme's default when the URL names none.
        public static let serverPort = Key("server.port")
        /// `url.full`: the URL, without user name or password, with the values the ``Redaction`` hides replaced.
        public static let urlFull = Key("url.full")
        /// `url.template`: the path as a template, such as `/users/{id}`, from ``Request/urlTemplate``.
        public static let urlTemplate = Key("url.template")
        /// `http.response.status_code`: the response's status.
        public static let httpResponseStatusCode = Key("http.response.status_code")
        /// `error.type`: what failed the scope: the status code as text for a response of status 400 or above, else
        /// the ``SluiceError/Code`` (`transport`, `timedOut`, `cancelled`, …).
        public static let errorType = Key("error.type")
        /// `http.request.resend_count`: how many times the request was sent before this attempt, for any reason;
        /// absent on the first.
        public static let httpRequestResendCount = Key("http.request.resend_count")
        /// `network.protocol.name`: `http`.
        public static let networkProtocolName = Key("network.protocol.name")
        /// `network.protocol.version`: the HTTP version of the connection, such as `1.1`.
        public static let networkProtocolVersion = Key("network.protocol.version")
        /// `network.peer.address`: the address the connection went to, such as `127.0.0.1`, or a Unix socket's path.
        public static let networkPeerAddress = Key("network.peer.address")
        /// `network.peer.port`: the port the connection went to.
        public static let networkPeerPort = Key("network.peer.port")
        /// `network.transport`: `tcp` or `unix`.
        public static let networkTransport = Key("network.transport")
        /// `http.request.body.size`: the bytes of the request's body, when known before sending.
        public static let httpRequestBodySize = Key("http.request.body.size")
        /// `http.response.body.size`: the bytes of the response's body received.
        public static let httpResponseBodySize = Key("http.response.body.size")

        /// `url.scheme`: the scheme of the origin a connection goes to, `http` or `https`.
        public static let urlScheme = Key("url.scheme")
        /// `http.connection.state`: whether a connection carries an exchange, `active`, or waits for one, `idle`.
        public static let httpConnectionState = Key("http.connection.state")

        /// `sluice.cache.outcome`: what a ``CachingPerformer`` did: `hit`, `stale-hit`, `revalidated`, `miss`,
        /// `not-stored` or `unavailable` (``HTTPCache/Outcome/Kind``).
        public static let cacheOutcome = Key("sluice.cache.outcome")
        /// `sluice.request.id`: the request's ``RequestContext/id``.
        public static let requestID = Key("sluice.request.id")
        /// `sluice.attempt.reason`: why an attempt was sent: `first`, `retry`, `authentication` (a replay after 401)
        /// or `redirect`.
        public static let attemptReason = Key("sluice.attempt.reason")
        /// `sluice.attempt.redirect_hop`: the redirect's number in the chain, counted from 1; absent on the first hop.
        public static let attemptRedirectHop = Key("sluice.attempt.redirect_hop")
        /// `sluice.connection.reused`: whether the attempt took a kept-alive connection rather than a new one.
        public static let connectionReused = Key("sluice.connection.reused")
        /// `sluice.connection.id`: the connection's number in this process, the same for every attempt it carries.
        public static let connectionID = Key("sluice.connection.id")
        /// `sluice.connection.count`: how many connections a pool's log record tells of.
        public static let connectionCount = Key("sluice.connection.count")
        /// `sluice.detail`: the text a log record carries beside its fixed message, such as a warning or an error's
        /// message, with every credential of the request replaced.
        public static let detail = Key("sluice.detail")
        /// `sluice.background`: `true` on the request scope of work a performer does on its own, such as a cache's
        /// revalidation in the background.
        public static let background = Key("sluice.background")
    }

    /// The bucket boundaries, in seconds, of OpenTelemetry's `http.client.request.duration` histogram, as its HTTP
    /// client conventions advise: 5 ms to 10 s.
    ///
    /// One definition for every adapter that makes the histogram from the attempts' scopes.
    public static let requestDurationBuckets: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
    ]

    /// An attribute's value.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        /// Text.
        case string(String)
        /// A whole number.
        case int(Int)
        /// A truth value.
        case bool(Bool)

        /// The value as text, such as `GET`, `200` or `true`.
        public var description: String {
            switch self {
            case .string(let text): text
            case .int(let number): String(number)
            case .bool(let truth): String(truth)
            }
        }
    }

    /// A scope's attributes: values by key, in the order they were first set.
    public struct Attributes: Sendable, Hashable, Sequence {
        /// One attribute.
        public struct Attribute: Sendable, Hashable {
            /// Its name.
            public var key: Key
            /// Its value.
            public var value: Value
        }

        private var storage: [Attribute] = []

        /// Creates an empty set.
        public init() {}

        /// The value under a key, or `nil`; setting `nil` removes it.
        ///
        /// - Parameter key: The key.
        public subscript(key: Key) -> Value? {
            get { storage.first { $0.key == key }?.value }
            set {
                let index = storage.firstIndex { $0.key == key }
                switch (index, newValue) {
                case (let index?, let value?): storage[index].value = value
                case (let index?, nil): storage.remove(at: index)
                case (nil, let value?): storage.append(Attribute(key: key, value: value))
                case (nil, nil): break
                }
            }
        }

        /// How many attributes there are.
        public var count: Int { storage.count }

        /// Iterates over the attributes in the order they were first set.
        ///
        /// - Returns: The iterator.
        public func makeIterator() -> IndexingIterator<[Attribute]> {
            storage.makeIterator()
        }
    }
}
