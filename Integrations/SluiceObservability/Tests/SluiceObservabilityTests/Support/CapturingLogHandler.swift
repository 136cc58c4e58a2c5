import Foundation
import Logging

/// A log handler that keeps every entry it is given, for a test to read.
struct CapturingLogHandler: LogHandler {
    /// One entry as the logger passed it on.
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
        /// What the logger's metadata provider added, read when the entry was logged.
        var provided: Logger.Metadata
    }

    /// The entries of every handler made from one box.
    final class Box: Sendable {
        private let stored = Locked<[Entry]>([])

        var entries: [Entry] { stored.withLock { $0 } }

        func append(_ entry: Entry) {
            stored.withLock { $0.append(entry) }
        }
    }

    let box: Box
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        box.append(
            Entry(
                level: event.level,
                message: event.message.description,
                metadata: metadata.merging(event.metadata ?? [:]) { $1 },
                provided: metadataProvider?.get() ?? [:]
            )
        )
    }
}

extension Logger {
    /// A logger whose entries go to `box`, from `level` up, with a metadata provider if given.
    static func capturing(
        _ label: String,
        into box: CapturingLogHandler.Box,
        level: Logger.Level,
        metadataProvider: Logger.MetadataProvider? = nil
    ) -> Logger {
        Logger(label: label) { _ in
            CapturingLogHandler(box: box, logLevel: level, metadataProvider: metadataProvider)
        }
    }
}
