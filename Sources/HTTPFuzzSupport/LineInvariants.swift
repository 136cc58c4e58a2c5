import Foundation
import SluiceCore

/// What must hold for every body read as lines: the lines are those a plain reading of the bytes finds (ends at
/// CR, LF or CRLF, a last line without an end kept), the same whole and in chunks cut anywhere, and a line past the
/// limit fails with an error naming that line.
package enum LineInvariants {
    /// A tight limit, so that short inputs reach it.
    package static let maximumLength = 64

    /// Reads an input's payload whole, then in its chunks, and compares both with a plain reading.
    ///
    /// - Parameter input: The fuzzer's input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in input: ChunkedInput) async -> String? {
        let expected = reference(input.payload)
        let whole = await read([input.payload])
        guard whole == expected else {
            return "read whole: \(whole)\nexpected: \(expected)"
        }
        let chunked = await read(input.chunks)
        guard chunked == expected else {
            return "read in chunks cut at \(input.cuts): \(chunked)\nexpected: \(expected)"
        }
        return nil
    }

    /// The lines, and the error that ended them, as text.
    struct Reading: Equatable, CustomStringConvertible {
        var lines: [String] = []
        /// The number of the line past the limit, when one is.
        var tooLong: Int?

        var description: String {
            "\(lines.map(\.debugDescription))" + (tooLong.map { ", line \($0) too long" } ?? "")
        }
    }

    /// The lines as the sequence reads them from chunks, with the limit's error checked and recorded.
    static func read(_ chunks: [[UInt8]]) async -> Reading {
        var reading = Reading()
        do {
            for try await line in ChunkedInput.stream(of: chunks).decodingLines(maximumLength: maximumLength) {
                reading.lines.append(line)
            }
        } catch let error as StreamParseError {
            let described = error.description
            let named = error.code == .lineTooLong && described.contains("line \(error.line)")
            // A wrong error shows as a line count no plain reading gives.
            reading.tooLong = named ? error.line : -1
        } catch {
            reading.tooLong = -2
        }
        return reading
    }

    /// The lines a plain reading of the bytes finds.
    static func reference(_ bytes: [UInt8]) -> Reading {
        var reading = Reading()
        var line: [UInt8] = []
        var index = 0
        func end() -> Bool {
            guard line.count <= maximumLength else {
                reading.tooLong = reading.lines.count + 1
                return false
            }
            reading.lines.append(String(decoding: line, as: UTF8.self))
            line = []
            return true
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\r"):
                if index < bytes.count, bytes[index] == UInt8(ascii: "\n") {
                    index += 1
                }
                guard end() else { return reading }
            case UInt8(ascii: "\n"):
                guard end() else { return reading }
            default:
                line.append(byte)
            }
        }
        if !line.isEmpty {
            _ = end()
        }
        return reading
    }
}
