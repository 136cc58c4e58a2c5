import Foundation
import SluiceCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Rendering a ``SluiceError`` takes memory bounded by its excerpts, whatever the size of the bodies it carries.
///
/// The description shows at most 512 characters of the response body, and reads the bodies only to find the
/// credentials to hide; it once parsed the whole of each, and grew memory by about 140 MiB for a failed 8 MB `POST`.
/// The peak is read from the kernel (``PeakMemory``), for the whole process: the test is in the soak's serialized
/// suite, and measures once more when the first peak is over the bound, since another suite
/// may have held a large body meanwhile.
enum ErrorRenderingMemory {
    /// The most the peak of resident memory may grow by while the error renders.
    static let bound = 32 << 20

    /// A JSON document of about `size` bytes, an array of objects with a hidden field in each.
    static func document(size: Int) -> Data {
        let item = #"{"id":12345,"name":"a user with a long enough name","password":"hunter2"},"#
        var text = "["
        text.reserveCapacity(size + item.utf8.count)
        while text.utf8.count < size {
            text += item
        }
        text += #"{"id":0}]"#
        return Data(text.utf8)
    }
}

extension SoakTests {
    @Test func renderingTheErrorOfAnEightMegabytePostTakesBoundedMemory() throws {
        let body = ErrorRenderingMemory.document(size: 8 << 20)
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/import")))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let response = HTTPResponse(status: .badRequest, headers: [.contentType: "application/json"], body: body)
        let error = SluiceError(.status, request: request, response: response)
        var rendered = ""
        func render() -> Int? {
            PeakMemory.growth(during: { rendered = error.description })
        }
        guard var growth = render() else {
            // Not measured (not Linux, or a sanitizer): the rendering is still checked.
            #expect(rendered.contains("status: 400"))
            #expect(!rendered.contains("hunter2"))
            return
        }
        if growth >= ErrorRenderingMemory.bound, let again = render() {
            growth = min(growth, again)
        }
        #expect(growth < ErrorRenderingMemory.bound, "the peak grew by \(growth >> 20) MiB")
        // Still redacted: the hidden field's value is in neither the excerpt nor anywhere else.
        #expect(!rendered.contains("hunter2"))
        #expect(rendered.contains(#"body: [{"id":12345,"name":"a user with a long enough name","password":"#))
        #expect(rendered.utf8.count < 4 << 10)
    }
}
