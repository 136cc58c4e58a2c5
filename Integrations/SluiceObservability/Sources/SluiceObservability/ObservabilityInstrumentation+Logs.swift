import Logging
public import SluiceCore
import Tracing

extension ObservabilityInstrumentation {
    /// The least severe level of the loggers, as Sluice's level: records below it are never made; `nil` without a
    /// logger.
    public var logLevel: LogRecord.Level? {
        // Read at the end of every request: two optionals compared, with no array made.
        let own = logger.map { LogRecord.Level($0.logLevel) }
        let pool = poolLogger.map { LogRecord.Level($0.logLevel) }
        guard let own, let pool else { return own ?? pool }
        return min(own, pool)
    }

    /// Writes a record to the request's logger or the pool's, at its level, with its metadata; a request's record
    /// under the context of its scope's span, where a logging metadata provider finds the trace and span ids, and the
    /// pool's under no span.
    ///
    /// - Parameter record: The record, its metadata redacted.
    public func log(_ record: LogRecord) {
        guard let logger = record.activity == .pool ? poolLogger : logger else { return }
        let level = Logger.Level(record.level)
        guard level >= logger.logLevel else { return }
        var metadata = Logger.Metadata()
        for attribute in record.metadata {
            metadata[attribute.key.name] = attribute.value.metadataValue
        }
        let message = Logger.Message(stringLiteral: record.message.description)
        // The pool's work is no request's, even when a request's task opened the connection: its records carry no
        // span, whatever context that task has.
        let context = (record.scope?.state as? ScopeState)?.context ?? (record.activity == .pool ? .topLevel : nil)
        if let context {
            ServiceContext.withValue(context) {
                logger.log(level: level, message, metadata: metadata)
            }
        } else {
            logger.log(level: level, message, metadata: metadata)
        }
    }

    /// Moves the pool's metric by the measurement's change.
    ///
    /// - Parameter measurement: The change in the pool's open connections.
    public func record(_ measurement: PoolMeasurement) {
        recordPool(measurement)
    }
}

extension LogRecord.Level {
    /// Sluice's level of swift-log's: the one of the same name.
    init(_ level: Logger.Level) {
        self = LogRecord.Level.allCases.first { Logger.Level($0) == level } ?? .trace
    }
}

extension Logger.Level {
    /// swift-log's level of Sluice's.
    init(_ level: LogRecord.Level) {
        switch level {
        case .trace: self = .trace
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .critical
        }
    }
}

extension InstrumentationScope.Value {
    /// The value as a log record's metadata: text as a string, a number or a truth value as itself.
    var metadataValue: Logger.MetadataValue {
        switch self {
        case .string(let text): .string(text)
        case .int(let number): .stringConvertible(number)
        case .bool(let truth): .stringConvertible(truth)
        }
    }
}
