import ClientFixtures
import Foundation
import Testing

@testable import SluiceCore

@Suite struct ResumeRecordTests {
    @Test func aWeakETagLeavesTheLastModifiedDateAsTheValidator() throws {
        let date = "Sat, 21 Nov 2026 10:00:00 GMT"
        let record = try #require(
            ResumeRecord(headers: ["ETag": "W/\"v1\"", "Last-Modified": date], completeLength: 5)
        )
        #expect(record.field == .lastModified)
        #expect(record.validator == date)
        #expect(ResumeRecord(headers: ["ETag": "W/\"v1\""], completeLength: 5) == nil)
        #expect(
            try #require(ResumeRecord(headers: ["ETag": "\"v1\"", "Last-Modified": date], completeLength: nil)).field
                == .eTag
        )
    }

    @Test func aResponseWithoutAValidatorCannotBeResumed() {
        #expect(ResumeRecord(headers: ["Content-Length": "5"], completeLength: 5) == nil)
    }

    @Test func anEncodedResponseCannotBeResumed() {
        #expect(ResumeRecord(headers: ["ETag": "\"v1\"", "Content-Encoding": "gzip"], completeLength: nil) == nil)
        #expect(ResumeRecord(headers: ["ETag": "\"v1\"", "Content-Encoding": "identity"], completeLength: nil) != nil)
    }

    @Test func isKeptAsJSONBesideThePartialFile() throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("file.bin.part.resume")
        let record = try #require(ResumeRecord(headers: ["ETag": "\"v1\""], completeLength: 42))
        try record.save(to: url)
        #expect(ResumeRecord.load(from: url) == record)
        try Data("not a record".utf8).write(to: url)
        #expect(ResumeRecord.load(from: url) == nil)
    }
}
