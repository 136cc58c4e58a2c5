// A libFuzzer target for Sluice's JSON deserializer:
//
//     swift build -c release --product json-fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
//         -Xswiftc -use-ld=lld
//     .build/release/json-fuzzer -max_total_time=600 -dict=Tests/SluiceJSONTests/Parsing/Resources/json.dict CORPUS
//
// Built without -DFUZZING (as `swift build` does), it replays the input files named on its command line.
import FuzzDriver
import JSONFuzzSupport

@main
enum Fuzz {
    static func main() {
        runFuzzer { bytes in
            if let violation = JSONInvariants.violation(in: bytes) {
                fatalError(violation)
            }
        }
    }
}
