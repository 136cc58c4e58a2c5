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
/// The peak is read from the kernel (`VmHWM`, reset through `clear_refs`), for the whole process: the test is in
/// the soak's serialized suite, and measures once more when the first peak is over the bound, since another suite
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

    /// The peak of resident memory since the last reset, and the current resident memory, in bytes.
    static func peakAndCurrent() -> (peak: Int, current: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func kilobytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else {
                return nil
            }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 << 10 }
        }
        guard let peak = kilobytes("VmHWM"), let current = kilobytes("VmRSS") else { return nil }
        return (peak, current)
    }

    /// Resets the peak of resident memory to the current value.
    static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// How far the peak of resident memory rose while `work` ran; `nil` where the kernel does not say.
    static func peakGrowth(_ work: () -> Void) -> Int? {
        guard resetPeak(), let before = peakAndCurrent() else { return nil }
        work()
        guard let after = peakAndCurrent() else { return nil }
        return after.peak - before.current
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
            ErrorRenderingMemory.peakGrowth { rendered = error.description }
        }
        guard var growth = render() else {
            // A kernel without `clear_refs` (not Linux): the rendering is still checked below.
            rendered = error.description
            #expect(rendered.contains("status: 400"))
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
