extension HTTPCache {
    /// What the HTTP cache did for a response: served it stored, fresh or stale, revalidated it, fetched it, and whether
    /// it stored it, with the reason.
    ///
    /// Every response that passes through a ``CachingPerformer`` carries its outcome in a `Cache-Status` header field
    /// (RFC 9211), as a member named `Sluice`, so that it reaches every place a response goes: ``HTTPResponse``,
    /// ``HTTPResponse/Streamed``, ``APIClient/Response``, the request's finish event and the log line
    /// ``LoggingObserver`` writes. Read it back with ``HTTPResponse/cacheOutcome``:
    ///
    /// ```swift
    /// let response = try await client.response(for: GetUser(id: 42))
    /// if response.cacheOutcome?.kind == .hit { print("served from the cache") }
    /// ```
    public struct Outcome: Sendable, Hashable, CustomStringConvertible {
        /// What the cache did.
        ///
        /// An open set: compare against the static members.
        public struct Kind: Sendable, Hashable, CustomStringConvertible {
            /// The kind's name, as the `Cache-Status` detail spells it.
            public let name: String

            /// Served from the cache, fresh, without contacting the origin.
            public static let hit = Kind(name: "hit")
            /// Served from the cache although stale, because a directive allowed it (``HTTPCache/Outcome/detail`` says
            /// which: `max-stale`, `stale-while-revalidate` or `stale-if-error`).
            public static let staleHit = Kind(name: "stale-hit")
            /// A stored response validated with the origin, which answered `304 Not Modified`: the stored body was served
            /// with the updated header fields.
            public static let revalidated = Kind(name: "revalidated")
            /// Fetched from the origin and stored.
            public static let miss = Kind(name: "miss")
            /// Fetched from the origin and not stored (``HTTPCache/Outcome/detail`` says why).
            public static let notStored = Kind(name: "not-stored")
            /// Nothing stored could answer a request that said `only-if-cached`: the cache answered `504`.
            public static let unavailable = Kind(name: "unavailable")

            /// The kind's name.
            public var description: String { name }
        }

        /// What the cache did.
        public var kind: Kind
        /// Why: the directive that allowed a stale response, or the reason a response was not stored.
        public var detail: String?

        /// Creates an outcome.
        ///
        /// - Parameters:
        ///   - kind: What the cache did.
        ///   - detail: Why.
        public init(_ kind: Kind, detail: String? = nil) {
            self.kind = kind
            self.detail = detail
        }

        /// The kind and, when there is one, the detail: `not-stored (the response says no-store)`.
        public var description: String { detail.map { "\(kind) (\($0))" } ?? kind.name }

        /// The name of the cache's member of `Cache-Status`.
        static let cacheName = "Sluice"
        /// The most bytes of a `Cache-Status` detail read back.
        private static let maximumDetail = 512

        /// The `Cache-Status` member for this outcome (RFC 9211): its standard parameters, and the outcome in `detail`.
        var cacheStatusMember: String {
            let standard: String
            switch kind {
            case .hit, .staleHit: standard = "hit"
            case .revalidated: standard = "fwd=stale; fwd-status=304"
            case .miss: standard = "fwd=uri-miss; stored"
            case .unavailable: standard = "fwd=miss"
            default: standard = "fwd=uri-miss"
            }
            let text = description.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"",
                with: "\\\""
            )
            return "\(HTTPCache.Outcome.cacheName); \(standard); detail=\"\(text)\""
        }

        /// The members of a list field value: split at the commas outside quoted strings.
        private static func members(_ value: String) -> [Substring] {
            var members: [Substring] = []
            var start = value.startIndex
            var quoted = false
            var escaped = false
            for index in value.indices {
                let character = value[index]
                if escaped {
                    escaped = false
                } else if quoted && character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted.toggle()
                } else if character == ",", !quoted {
                    members.append(value[start..<index])
                    start = value.index(after: index)
                }
            }
            members.append(value[start...])
            return members
        }

        /// The outcome the last `Sluice` member of `Cache-Status` fields records, or `nil` when there is none.
        init?(cacheStatus headers: HTTPHeaders) {
            let members = headers.values(for: Header("Cache-Status")).flatMap(HTTPCache.Outcome.members)
            guard
                let member = members.last(where: {
                    $0.trimmingCharacters(in: .whitespaces).hasPrefix(HTTPCache.Outcome.cacheName + ";")
                }),
                let start = member.range(of: "detail=\"")?.upperBound
            else { return nil }
            var text = ""
            var escaped = false
            for character in member[start...].prefix(HTTPCache.Outcome.maximumDetail) {
                if escaped {
                    text.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    text.append(character)
                }
            }
            let kind = text.prefix { $0 != " " }
            let rest = text.dropFirst(kind.count).trimmingCharacters(in: .whitespaces)
            let detail = rest.hasPrefix("(") && rest.hasSuffix(")") ? String(rest.dropFirst().dropLast()) : nil
            self.init(Kind(name: String(kind)), detail: detail)
        }
    }
}

extension HTTPResponse {
    /// What the HTTP cache did for this response, or `nil` when it did not pass through a ``CachingPerformer``.
    public var cacheOutcome: HTTPCache.Outcome? { HTTPCache.Outcome(cacheStatus: headers) }
}

extension HTTPResponse.Streamed {
    /// What the HTTP cache did for this response, or `nil` when it did not pass through a ``CachingPerformer``.
    public var cacheOutcome: HTTPCache.Outcome? { HTTPCache.Outcome(cacheStatus: headers) }
}

extension APIClient.Response {
    /// What the HTTP cache did for this response, or `nil` when it did not pass through a ``CachingPerformer``.
    public var cacheOutcome: HTTPCache.Outcome? { http.cacheOutcome }
}
