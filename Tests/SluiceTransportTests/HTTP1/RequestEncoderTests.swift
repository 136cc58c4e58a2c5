import Foundation
import Testing

@testable import SluiceTransport

/// The request side of the HTTP/1.1 codec, without a socket: the bytes of a head and a body, framed as the head
/// declared, and the errors of a body that breaks its declaration.
@Suite struct RequestEncoderTests {
    /// The head of a request to a local origin.
    private func head(_ request: URLRequest) throws -> RequestHead {
        let url = try #require(request.url)
        let origin = try #require(Origin(url, unixSocketPath: nil))
        return try RequestHead(request, target: origin)
    }

    private func post(body: Data? = nil, stream: Data? = nil, length: Int? = nil) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:8080/upload")))
        request.httpMethod = "POST"
        request.httpBody = body
        if let stream {
            request.httpBodyStream = InputStream(data: stream)
        }
        if let length {
            request.setValue(String(length), forHTTPHeaderField: "Content-Length")
        }
        return request
    }

    @Test func aBodyOfDataFollowsTheHeadAndEndsTheRequest() throws {
        let request = try post(body: Data("hello".utf8))
        let head = try head(request)
        var encoder = RequestEncoder(framing: head.framing)
        var output: [UInt8] = []
        try encoder.encodeHead(head, body: request.httpBody, into: &output)
        #expect(output == Array(head.bytes) + Array("hello".utf8))
        #expect(encoder.isComplete)
        #expect(encoder.bodyBytesEncoded == 5)
    }

    @Test func aRequestWithoutABodyIsCompleteAfterItsHead() throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:8080/")))
        request.httpMethod = "GET"
        let head = try head(request)
        var encoder = RequestEncoder(framing: head.framing)
        var output: [UInt8] = []
        try encoder.encodeHead(head, body: nil, into: &output)
        #expect(output == Array(head.bytes))
        #expect(encoder.isComplete)
    }

    @Test func aStreamWithoutALengthGoesInChunksThenTheLastChunk() throws {
        let head = try head(try post(stream: Data("abc".utf8)))
        #expect(head.framing == .chunked)
        var encoder = RequestEncoder(framing: head.framing)
        var output: [UInt8] = []
        try encoder.encodeHead(head, body: nil, into: &output)
        #expect(!encoder.isComplete)
        output.removeAll()
        try encoder.encodeBody(Array("0123456789abcdefX".utf8), into: &output)
        try encoder.encodeBody([UInt8](), into: &output)
        try encoder.encodeBody(Array("z".utf8), into: &output)
        try encoder.encodeEnd(into: &output)
        #expect(String(decoding: output, as: UTF8.self) == "11\r\n0123456789abcdefX\r\n1\r\nz\r\n0\r\n\r\n")
        #expect(encoder.bodyBytesEncoded == 18)
        #expect(encoder.isComplete)
    }

    @Test func aStreamWithALengthGoesAsItIs() throws {
        let head = try head(try post(stream: Data("abcdef".utf8), length: 6))
        #expect(head.framing == .length(6))
        var encoder = RequestEncoder(framing: head.framing)
        var output: [UInt8] = []
        try encoder.encodeBody(Array("abc".utf8), into: &output)
        #expect(encoder.bodyBytesRemaining == 3)
        try encoder.encodeBody(Array("def".utf8), into: &output)
        try encoder.encodeEnd(into: &output)
        #expect(String(decoding: output, as: UTF8.self) == "abcdef")
        #expect(encoder.bodyBytesRemaining == 0)
    }

    @Test func aStreamLongerThanItsLengthFailsBeforeAByteTooManyIsEncoded() throws {
        var encoder = RequestEncoder(framing: .length(4))
        var output: [UInt8] = []
        try encoder.encodeBody(Array("abc".utf8), into: &output)
        let error = #expect(throws: SluiceError.self) {
            try encoder.encodeBody(Array("de".utf8), into: &output)
        }
        #expect(error?.message == "the request body stream is longer than its Content-Length of 4 bytes")
        #expect(output == Array("abc".utf8))
    }

    @Test func aStreamShortOfItsLengthFailsAtItsEnd() throws {
        var encoder = RequestEncoder(framing: .length(20))
        var output: [UInt8] = []
        try encoder.encodeBody(Array(repeating: UInt8(ascii: "x"), count: 10), into: &output)
        let error = #expect(throws: SluiceError.self) { try encoder.encodeEnd(into: &output) }
        #expect(error?.message == "the request body stream ended after 10 bytes, short of its Content-Length of 20")
        #expect(!encoder.isComplete)
    }
}
