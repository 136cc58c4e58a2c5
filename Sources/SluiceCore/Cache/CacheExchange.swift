/// One request through the cache.
///
/// It makes the lookup, the call to the origin when one is needed, and stores what may be stored, with the outcome
/// marked on the answer. The buffered and streamed forms differ only in `send`.
///
/// Variants are matched on `asSent`, the request as the performer below would send it, and stored only when the
/// request the transport reports it sent agrees with it on every field the response varies on.
struct CacheExchange: Sendable {
    let cache: HTTPCache
    let request: URLRequest
    /// The request as the performer below the cache would send it (``RequestPerformer/requestAsSent(_:)``): with the
    /// cookies and other fields it adds, which `Vary` is matched on.
    let asSent: URLRequest
    let send: @Sendable (URLRequest) async throws -> CacheAnswer

    /// The statuses after which `stale-if-error` may serve a stored response (RFC 5861, 4).
    static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    private var storage: any CacheStorage { cache.store.storage }
    private var method: String { request.httpMethod?.uppercased() ?? "GET" }

    /// ``run()`` as the cache stage of the current request's instrumentation, when it has one: from the lookup to
    /// the answer, with the outcome.
    func traced() async throws -> CacheAnswer {
        guard let tracing = RequestContext.current?.tracing, let scope = tracing.beginStage("cache", at: .now) else {
            return try await run()
        }
        do {
            let answer = try await run()
            if let outcome = HTTPCache.Outcome(cacheStatus: answer.headers) {
                scope.set(.cacheOutcome, .string(outcome.kind.name))
            }
            tracing.endStage(scope, at: .now, error: nil)
            return answer
        } catch {
            tracing.endStage(scope, at: .now, error: error)
            throw error
        }
    }

    func run() async throws -> CacheAnswer {
        guard let key = CacheEntry.key(for: request.url) else {
            return try await send(request).marked(.notStored, "the request has no URL")
        }
        guard method == "GET" || method == "HEAD" else {
            let answer = try await send(request)
            let unsafe = !["OPTIONS", "TRACE"].contains(method)
            if unsafe, (200..<400).contains(answer.status.code) {
                for key in CacheRules.invalidatedKeys(by: request, response: answer.headers) {
                    storage.removeEntries(for: key)
                }
            }
            return answer.marked(.notStored, "\(method) responses are not stored")
        }
        guard request.value(forHTTPHeaderField: "Range") == nil else {
            return try await send(request).marked(.notStored, "a Range request is passed through")
        }
        let now = cache.now
        let lookup = CacheLookup.find(
            for: request,
            sentAs: asSent,
            among: storage.entries(for: key),
            at: now,
            heuristicLimit: cache.heuristicLimit
        )
        switch lookup {
        case .fresh(let entry):
            if let answer = serve(entry, at: now, as: .hit) { return answer }
        case .stale(let entry, let reason, let revalidate):
            if let answer = serve(entry, at: now, as: .staleHit, reason) {
                if revalidate { revalidateInBackground(entry) }
                return answer
            }
        case .miss, .validate:
            break
        }
        if CacheControl(request).onlyIfCached {
            return CacheAnswer(status: HTTPStatus(code: 504), headers: [:], url: request.url, body: .data(Data()))
                .marked(.unavailable, "only-if-cached, and nothing stored may answer")
        }
        if case .validate(let entry) = lookup, method == "GET" {
            return try await validate(entry)
        }
        return try await fetch()
    }

    // MARK: - Serving

    /// A stored response as the answer, with its `Age` (4, 5.1).
    ///
    /// It is a `304` when the request's own preconditions say the client has it (4.3.2); `nil` when its body is gone
    /// from the store.
    private func serve(
        _ entry: CacheEntry,
        at now: Date,
        as kind: HTTPCache.Outcome.Kind,
        _ detail: String? = nil
    ) -> CacheAnswer? {
        var headers = entry.headers
        headers[.age] = String(Int(min(entry.currentAge(at: now), TimeInterval(CacheControl.largestDuration))))
        if CacheRules.requestConditionsFail(request, for: entry) == true {
            headers[.contentLength] = nil
            return CacheAnswer(status: .notModified, headers: headers, url: entry.url, body: .data(Data()))
                .marked(kind, detail)
        }
        let body: CachedBody
        if method == "HEAD" {
            body = .data(Data())
        } else {
            guard let stored = storage.body(of: entry) else { return nil }
            body = stored
        }
        return CacheAnswer(status: entry.status, headers: headers, url: entry.url, body: body).marked(kind, detail)
    }

    // MARK: - The origin

    /// Sends the request as it is and stores what may be stored.
    private func fetch() async throws -> CacheAnswer {
        let requestTime = cache.now
        let (answer, sent) = try await sendReporting(request)
        let responseTime = cache.now
        if method == "HEAD" {
            updateStoredGET(with: answer, requestTime: requestTime, responseTime: responseTime)
            return answer.marked(.notStored, "a HEAD response only updates a stored GET")
        }
        if answer.status.code == 304, CacheRules.isConditional(request) {
            return freshen(with: answer, requestTime: requestTime, responseTime: responseTime)
        }
        return store(answer, sent: sent, requestTime: requestTime, responseTime: responseTime)
    }

    /// Sends a request, and returns the answer with the request the transport reports it sent, if it reports one
    /// (Sluice's own transports do; see ``RequestPerformer/requestAsSent(_:)``).
    private func sendReporting(_ request: URLRequest) async throws -> (answer: CacheAnswer, sent: URLRequest?) {
        let (answer, sent) = try await SentRequestReport.run { try await send(request) }
        return (answer, sent)
    }

    /// Validates a stored response with a conditional request (4.3.1) and uses the origin's answer (4.3.3): a `304`
    /// updates and serves it, an error serves it when `stale-if-error` allows, anything else replaces it.
    private func validate(_ entry: CacheEntry) async throws -> CacheAnswer {
        let tag = entry.headers[.eTag]
        let modified = entry.headers[.lastModified]
        let ownConditions = CacheRules.isConditional(request)
        // Without a validator the request goes as it is, and only an error may still be answered from the entry.
        var conditional = request
        if !ownConditions {
            conditional.setValue(tag, forHTTPHeaderField: "If-None-Match")
            conditional.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
        }
        let requestTime = cache.now
        let answer: CacheAnswer
        let sent: URLRequest?
        do {
            (answer, sent) = try await sendReporting(conditional)
        } catch {
            if !(error is CancellationError), !Task.isCancelled, let stale = serveOnError(entry) { return stale }
            throw error
        }
        let responseTime = cache.now
        if answer.status.code == 304 {
            // A 304 without validators answers the conditions this cache made from the entry's own validators, so
            // it is taken to describe the entry, although 4.3.4 selects one only when the entry has none either:
            // servers omit them (RFC 9110, 15.4.5, only says SHOULD), and a fetch again would only cost a transfer.
            let unlabelled = answer.headers[.eTag] == nil && answer.headers[.lastModified] == nil
            guard (unlabelled && !ownConditions) || CacheRules.validators(of: answer.headers, match: entry) else {
                // A 304 for a response this cache does not hold: ask again, without conditions.
                return try await withoutConditions.fetch()
            }
            let fresh = updatedEntry(entry, with: answer.headers, requestTime: requestTime, responseTime: responseTime)
            storage.updateHead(fresh)
            if ownConditions {
                return answer.marked(.revalidated)
            }
            if let served = serve(fresh, at: responseTime, as: .revalidated) { return served }
            return try await withoutConditions.fetch()
        }
        if CacheExchange.errorStatuses.contains(answer.status.code), let stale = serveOnError(entry) {
            return stale
        }
        return store(answer, sent: sent, requestTime: requestTime, responseTime: responseTime)
    }

    /// The stored response in place of an error, when `stale-if-error` allows it.
    private func serveOnError(_ entry: CacheEntry) -> CacheAnswer? {
        let now = cache.now
        guard CacheLookup.mayServeOnError(entry, for: request, at: now, heuristicLimit: cache.heuristicLimit)
        else { return nil }
        return serve(entry, at: now, as: .staleHit, "stale-if-error")
    }

    /// This exchange for the request without the preconditions it carries.
    private var withoutConditions: CacheExchange {
        CacheExchange(cache: cache, request: stripped(request), asSent: stripped(asSent), send: send)
    }

    /// The request without the preconditions it carries.
    private func stripped(_ request: URLRequest) -> URLRequest {
        var request = request
        request.setValue(nil, forHTTPHeaderField: "If-None-Match")
        request.setValue(nil, forHTTPHeaderField: "If-Modified-Since")
        return request
    }

    // MARK: - Storing

    /// Stores a response from the origin when it may be stored, its body as it passes through.
    ///
    /// It is stored under the fields it varies on as ``asSent`` has them, unless `sent`, the request the transport
    /// reports it sent, has another value for one of them: a later request could then not be matched with the
    /// request the response answered, and it is not stored.
    private func store(_ answer: CacheAnswer, sent: URLRequest?, requestTime: Date, responseTime: Date) -> CacheAnswer {
        // A HEAD validated in the background ends here too: its response has no body to store.
        guard method == "GET" else { return answer.marked(.notStored, "\(method) responses are not stored") }
        if let reason = CacheRules.reasonNotStorable(request: request, status: answer.status, headers: answer.headers) {
            return answer.marked(.notStored, reason)
        }
        if let sent, let field = CacheEntry.firstDifference(between: asSent, and: sent, varyingOn: answer.headers) {
            return answer.marked(.notStored, CacheExchange.unseen(field))
        }
        guard let key = CacheEntry.key(for: request.url),
            let variant = CacheEntry.variant(of: asSent, varyingOn: answer.headers)
        else { return answer.marked(.notStored, "Vary: * matches no later request") }
        let limit = cache.maximumEntrySize
        let tooLarge = "the body is larger than the \(limit) bytes an entry may hold"
        let declared: Int?
        switch answer.body {
        case .data(let data): declared = data.count
        case .stream(let body): declared = body.expectedLength.map { Int(clamping: $0) }
        }
        if let declared, declared > limit {
            return answer.marked(.notStored, tooLarge)
        }
        let entry = CacheEntry(
            key: key,
            variant: variant,
            status: answer.status,
            headers: CacheRules.storedFields(of: answer.headers),
            url: answer.url,
            requestTime: requestTime,
            responseTime: responseTime,
            bodySize: declared ?? 0
        )
        guard let writer = storage.writer(for: entry) else {
            return answer.marked(.notStored, "the store cannot hold an entry of this size")
        }
        switch answer.body {
        case .data(let data):
            do {
                try writer.write(data)
                try writer.commit()
            } catch {
                writer.discard()
                return answer.marked(.notStored, "the store failed: \(SluiceError.describe(error))")
            }
            return answer.marked(.miss)
        case .stream(let body):
            var stored = answer.marked(.miss)
            stored.body = .stream(
                HTTPBody(StoringBody(body: body, writer: writer, limit: limit), expectedLength: body.expectedLength)
                    .reportingTrailers(of: body)
            )
            return stored
        }
    }

    /// Why a response is not stored when the request was sent with a value of `field` the cache did not see.
    static func unseen(_ field: String) -> String {
        if field == "authorization" {
            return "the request was sent with an Authorization added below the cache, which keys responses by it: "
                + "put the cache inside the performer that adds it"
        }
        return "the response varies on \(field), whose value as sent differs from the one the cache matched on: "
            + "a performer below the cache changed it without requestAsSent(_:) saying so, or it changed meanwhile"
    }

    /// The stored variant the request selects, its head updated with a `304`'s or `HEAD` response's fields and the
    /// exchange's times (3.2, 4.3.4).
    private func updatedEntry(
        _ entry: CacheEntry,
        with headers: HTTPHeaders,
        requestTime: Date,
        responseTime: Date
    )
        -> CacheEntry
    {
        var updated = entry
        updated.headers = CacheRules.updated(entry.headers, with: headers)
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// A `304` to the client's own conditional request: it freshens the stored variant it describes (4.3.4).
    private func freshen(with answer: CacheAnswer, requestTime: Date, responseTime: Date) -> CacheAnswer {
        guard let key = CacheEntry.key(for: request.url) else { return answer.marked(.notStored) }
        for entry in storage.entries(for: key)
        where entry.matches(asSent) && CacheRules.validators(of: answer.headers, match: entry) {
            storage.updateHead(
                updatedEntry(entry, with: answer.headers, requestTime: requestTime, responseTime: responseTime)
            )
            return answer.marked(.revalidated)
        }
        return answer.marked(.notStored, "a 304 with no stored response to update")
    }

    /// A `HEAD` response updates the stored `GET` it describes, or makes it invalid when its validators or length
    /// differ (4.3.5).
    private func updateStoredGET(with answer: CacheAnswer, requestTime: Date, responseTime: Date) {
        guard answer.status.code == 200, let key = CacheEntry.key(for: request.url) else { return }
        for entry in storage.entries(for: key) where entry.matches(asSent) {
            let lengthDiffers = answer.headers[.contentLength].flatMap { Int($0) }.map { $0 != entry.bodySize } ?? false
            let validatorsGiven = answer.headers[.eTag] != nil || answer.headers[.lastModified] != nil
            if lengthDiffers || (validatorsGiven && !CacheRules.validators(of: answer.headers, match: entry)) {
                storage.removeEntries(for: key)
                return
            }
            storage.updateHead(
                updatedEntry(entry, with: answer.headers, requestTime: requestTime, responseTime: responseTime)
            )
        }
    }

    // MARK: - In the background

    /// Starts the one revalidation of a stale entry that `stale-while-revalidate` asks for, unless one runs already.
    private func revalidateInBackground(_ entry: CacheEntry) {
        let id = entry.key + "\u{0}" + entry.variantID
        let cache = self.cache
        let started = cache.revalidating.withLock { $0.insert(id).inserted }
        guard started else { return }
        cache.backgroundRevalidations.add(1)
        let exchange = self
        // A request of its own: the caller has its answer, and its context may be finished.
        let context = RequestContext.background(for: request)
        Task {
            defer {
                cache.revalidating.withLock { _ = $0.remove(id) }
                cache.backgroundRevalidations.add(-1)
            }
            _ = try? await context.run { _ in
                let answer = try await exchange.validate(entry)
                return HTTPResponse(
                    status: answer.status,
                    headers: answer.headers,
                    body: try await answer.body.collect(),
                    url: answer.url
                )
            }
        }
    }
}
