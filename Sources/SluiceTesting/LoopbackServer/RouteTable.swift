/// What a route does with a request.
typealias RouteHandler = @Sendable (LoopbackServer.Request) -> LoopbackServer.Response

/// The routes of a ``LoopbackServer`` and the rules for picking one.
///
/// A pattern is either an exact path (`/users`) or a prefix ending in `/*` (`/files/*` matches `/files/a` and
/// `/files/a/b`, but not `/files`). Paths are compared byte for byte, still percent-encoded. When several routes
/// match, the most specific wins: an exact path before any prefix, a longer prefix before a shorter one, and a route
/// for the request's method before one for any method.
struct RouteTable {
    /// One registered route.
    private struct Route {
        /// The method to match exactly, or `nil` for any method.
        let method: String?
        /// The path pattern as registered.
        let pattern: String
        /// What to answer.
        let handler: RouteHandler
    }

    /// The routes in registration order.
    private var routes: [Route] = []

    /// Adds a route, replacing one registered earlier for the same method and pattern.
    ///
    /// - Parameters:
    ///   - method: The method to match exactly, or `nil` for any method.
    ///   - pattern: An exact path, or a prefix ending in `/*`.
    ///   - handler: What to answer.
    mutating func add(method: String?, pattern: String, handler: @escaping RouteHandler) {
        let route = Route(method: method, pattern: pattern, handler: handler)
        if let index = routes.firstIndex(where: { $0.method == method && $0.pattern == pattern }) {
            routes[index] = route
        } else {
            routes.append(route)
        }
    }

    /// Removes every route.
    mutating func removeAll() {
        routes.removeAll()
    }

    /// The handler of the most specific route matching the method and path, if any.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The request path, without the query.
    /// - Returns: The handler, or `nil` when no route matches.
    func handler(method: String, path: String) -> RouteHandler? {
        var best: (route: Route, rank: Int)?
        for route in routes {
            guard route.method == nil || route.method == method, var rank = Self.rank(of: route.pattern, for: path)
            else {
                continue
            }
            // Doubling leaves the lowest bit free to prefer a method-specific route over an any-method one.
            rank = rank * 2 + (route.method == nil ? 0 : 1)
            if best.map({ rank > $0.rank }) ?? true {
                best = (route, rank)
            }
        }
        return best?.route.handler
    }

    /// How specifically `pattern` matches `path`, or `nil` when it does not match at all.
    private static func rank(of pattern: String, for path: String) -> Int? {
        guard pattern.hasSuffix("/*") else {
            return pattern == path ? Int.max / 4 : nil
        }
        let prefix = pattern.dropLast()
        return path.hasPrefix(prefix) ? prefix.utf8.count : nil
    }
}
