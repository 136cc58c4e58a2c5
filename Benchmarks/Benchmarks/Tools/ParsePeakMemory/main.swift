// Measures the peak resident memory of one parse of a large document, as a multiple of the document's size.
//
//     cd Benchmarks && swift run -c release ParsePeakMemory [megabytes]
//     cd Benchmarks && swift run -c release ParsePeakMemory shape [megabytes] --write path
//
// The second form writes the shape's document to a file instead, for another parser to be measured on the same bytes
// (`Peers/simdjson/run`). With no shape named, it runs itself once per shape, each in a process of its own, and
// prints a table. A child
// builds its document, resets the kernel's high-water mark of resident memory (`/proc/self/clear_refs`), parses,
// and reports how far the high-water mark rose above the resident memory before the parse: the parse's own peak,
// the document itself not counted. Linux only: it reads `/proc/self/status`.
import Foundation
import SluiceJSON

/// The shapes measured: a REST list of users, a list of short records (dense: a value every 5 bytes or so), and the
/// real corpora repeated in an array.
let shapes = ["rest_users", "short_records", "twitter", "citm_catalog", "canada"]

/// The directory of the real corpora, beside this package's manifest (this file is
/// `Benchmarks/Benchmarks/Tools/ParsePeakMemory/main.swift`).
let corpus = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Corpus")

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`).
func status(_ field: String) -> Int {
    // Read with the C library: Foundation sizes a file before reading it, and files in /proc report no size.
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 256)
    while fgets(&buffer, Int32(buffer.count), file) != nil {
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard line.hasPrefix(field + ":") else { continue }
        let kilobytes =
            line.dropFirst(field.count + 1).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 0
        return kilobytes * 1_024
    }
    return 0
}

/// A deterministic page of users in the shape of a typical REST list response, compact, of about `size` bytes.
func restUsers(size: Int) -> Data {
    var state: UInt64 = 4
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    let words = ["alpha", "river", "stone", "cloud", "maple", "harbor", "signal", "garden", "copper", "meadow"]
    var text = #"{"data":["#
    text.reserveCapacity(size + 4_096)
    var index = 0
    while text.utf8.count < size {
        if index > 0 { text += "," }
        let bio =
            index % 4 == 0
            ? "null" : "\"" + (0..<(100 + next(80))).map { _ in words[next(10)] }.joined(separator: " ") + "\""
        let uuid = String(format: "%08x-%04x-%04x", next(1 << 30), next(1 << 16), next(1 << 16))
        let score = Double(next(1_000_000)) / 1_000
        let latitude = Double(next(180_000_000)) / 1e6 - 90
        text += #"{"id":\#(100_000 + index),"uuid":"\#(uuid)","username":"user_\#(index)","#
        text += #""email":"user\#(index)@example.com","first_name":"\#(words[next(10)])","#
        text += #""last_name":"\#(words[next(10)])","bio":\#(bio),"is_active":\#(index % 9 != 0),"#
        text += #""score":\#(score),"followers_count":\#(next(100_000)),"#
        text += #""created_at":"2018-0\#(1 + next(9))-1\#(next(9))T10:20:30Z","#
        text += #""address":{"street":"\#(next(999)) Main Street","city":"\#(words[next(10)])","#
        text += #""latitude":\#(latitude)},"tags":["\#(words[next(10)])","\#(words[next(10)])"],"#
        text += #""preferences":{"theme":"dark","push_notifications":true}}"#
        index += 1
    }
    text += #"],"meta":{"page":1,"per_page":\#(index)}}"#
    return Data(text.utf8)
}

/// A list of short records, a tape entry every 5 or 6 bytes: the densest realistic shape.
func shortRecords(size: Int) -> Data {
    var text = "["
    text.reserveCapacity(size + 256)
    var index = 0
    while text.utf8.count < size {
        if index > 0 { text += "," }
        text += #"{"id":\#(index),"ok":\#(index % 3 == 0),"n":"u\#(index % 100)","v":[\#(index % 7),\#(index % 11)]}"#
        index += 1
    }
    text += "]"
    return Data(text.utf8)
}

/// One of the real corpora, repeated as the elements of an array until the document is about `size` bytes.
func repeated(_ name: String, size: Int) throws -> Data {
    let file = try Data(contentsOf: corpus.appendingPathComponent(name + ".json"))
    var data = Data("[".utf8)
    data.reserveCapacity(size + file.count + 2)
    while data.count < size {
        if data.count > 1 { data.append(UInt8(ascii: ",")) }
        data.append(file)
    }
    data.append(UInt8(ascii: "]"))
    return data
}

/// One shape's document of about `megabytes` megabytes.
func document(_ shape: String, megabytes: Int) throws -> Data {
    let size = megabytes << 20
    return switch shape {
    case "rest_users": restUsers(size: size)
    case "short_records": shortRecords(size: size)
    default: try repeated(shape, size: size)
    }
}

/// Builds one shape's document, parses it, and prints its size, the resident memory the parse added at its peak,
/// and the ratio.
func measure(_ shape: String, megabytes: Int) throws {
    let document = try document(shape, megabytes: megabytes)
    // Resets VmHWM to the current resident memory (Linux 4.0 and later).
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let before = status("VmRSS")
    let json = try JSONDeserializer(maximumSize: .max).document(from: document)
    let peak = status("VmHWM") - before
    withExtendedLifetime(json) {
        let ratio = Double(peak) / Double(document.count)
        print(
            "| \(shape) | \(document.count / 1_000_000) MB | \(peak / 1_000_000) MB | \(String(format: "%.2f", ratio))x |"
        )
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
var path: String?
if let flag = arguments.firstIndex(of: "--write") {
    guard flag + 1 < arguments.count else {
        FileHandle.standardError.write(Data("--write needs the path of the file to write\n".utf8))
        exit(2)
    }
    path = arguments[flag + 1]
    arguments.removeSubrange(flag...(flag + 1))
}
let megabytes = arguments.compactMap { Int($0) }.first ?? 200
if let shape = arguments.first(where: { Int($0) == nil }) {
    guard shapes.contains(shape) else {
        FileHandle.standardError.write(Data("no shape '\(shape)': one of \(shapes.joined(separator: ", "))\n".utf8))
        exit(2)
    }
    if let path {
        try document(shape, megabytes: megabytes).write(to: URL(fileURLWithPath: path))
    } else {
        try measure(shape, megabytes: megabytes)
    }
} else if path != nil {
    FileHandle.standardError.write(Data("--write needs a shape: \(shapes.joined(separator: ", "))\n".utf8))
    exit(2)
} else {
    // Written unbuffered, so that it comes before the children's lines.
    FileHandle.standardOutput.write(
        Data("| document | size | peak added by the parse | peak / size |\n|---|---|---|---|\n".utf8)
    )
    for shape in shapes {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = [shape, String(megabytes)]
        try child.run()
        child.waitUntilExit()
    }
}
