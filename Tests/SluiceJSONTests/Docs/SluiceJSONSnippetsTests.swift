import Foundation
import SluiceJSON
import Testing

/// The snippets of the SluiceJSON catalog, compiled and run as written.
@Suite struct SluiceJSONSnippetsTests {
    struct User: Decodable, Equatable {
        let id: Int
        let name: String
    }

    @Test func landingPageSnippetDecodesTheUsers() throws {
        let document = try JSON(parsing: Data(#"{"users": [{"id": 1, "name": "Ada"}]}"#.utf8))
        let users = try JSONDocumentDecoder().decode([User].self, from: document["users"] ?? .null)
        #expect(users == [User(id: 1, name: "Ada")])
    }

    struct Flags: Decodable {
        let b: Int
        let a: Int
    }

    @Test func repeatedKeysSnippetReadsTheFirstValue() throws {
        let text = #"{"a": 1, "b": 2, "a": 3}"#
        let flags = try JSONDocumentDecoder().decode(Flags.self, from: Data(text.utf8))
        #expect(flags.a == 1)
    }
}
