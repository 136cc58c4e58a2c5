import Foundation
import SluiceJSON

/// What must hold for every input to Sluice's JSON deserializer, checked by the fuzzer on every input it makes up
/// and by the test suite on every input the fuzzer found interesting.
package enum JSONInvariants {
    /// Parses an input with tight limits and checks that an accepted document writes back as JSON that parses to an
    /// equal document, and that a rejected one has an error located inside the input.
    ///
    /// - Parameter bytes: The input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in bytes: UnsafeRawBufferPointer) -> String? {
        let data = Data(bytes)
        let deserializer = JSONDeserializer(maximumDepth: 64, maximumSize: 1 << 20, emptyBody: .reject)
        do {
            let document = try deserializer.document(from: data)
            let rewritten: JSON
            do {
                rewritten = try deserializer.document(from: document.jsonData)
            } catch {
                return "the JSON text written for a document does not parse: \(error)"
            }
            guard rewritten == document else {
                return "a document does not survive writing and parsing again: \(document.jsonText)"
            }
            // Read every value, as a decoder would, and through the decoder's paths for dictionaries keyed by
            // strings and arrays, with and without a key decoding strategy.
            _ = try? JSONDocumentDecoder().decode(JSON.self, from: document)
            for decoder in [JSONDocumentDecoder(), JSONDocumentDecoder(keyDecodingStrategy: .convertFromSnakeCase)] {
                _ = try? decoder.decode([String: JSON].self, from: document)
                _ = try? decoder.decode([String: [String: String]].self, from: document)
                _ = try? decoder.decode([[String: Int]].self, from: document)
                _ = try? decoder.decode([String: [Double]].self, from: document)
            }
            _ = document.description
        } catch {
            guard error.offset >= 0, error.offset <= data.count, error.line >= 1, error.column >= 1 else {
                return "an error is located outside the input: \(error)"
            }
            _ = error.description
        }
        return nil
    }
}
