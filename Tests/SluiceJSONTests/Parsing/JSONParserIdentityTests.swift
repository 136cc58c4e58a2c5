import Foundation
import Testing

@testable import SluiceJSON

/// The parse stage of a document the JSON deserializer produced: a cast that shares the document's storage.
@Suite struct JSONParserIdentityTests {
    @Test func parsingTheDeserializersDocumentSharesItsStorage() throws {
        let object = try JSONDeserializer().deserialize(Data(#"{"a": [1, 2]}"#.utf8))
        let document = try #require(object as? JSON)
        let parsed = try JSON.parse(object)
        #expect(parsed.storage === document.storage)
        #expect(parsed.entry == document.entry)
    }

    @Test func parsingAFoundationTreeConvertsItIntoStorageOfItsOwn() throws {
        let document = try JSON(parsing: #"{"a": [1, 2]}"#)
        let converted = try JSON.parse(["a": [1, 2]] as [String: Any])
        #expect(converted.storage !== document.storage)
        #expect(converted == document)
    }
}
