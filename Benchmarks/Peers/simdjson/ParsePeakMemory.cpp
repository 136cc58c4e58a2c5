// The peak resident memory simdjson's DOM parse adds, as a multiple of the document's size, measured as
// `Benchmarks/Tools/ParsePeakMemory` measures Sluice's, on a document that tool wrote (`--write`): the kernel's
// high-water mark is reset once the document is read, and the rise above the resident memory before the parse is the
// parse's own. Linux only.
//
//     ParsePeakMemory FILE
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

// A field of /proc/self/status (VmRSS, VmHWM) in bytes.
static long status(const char *field) {
    std::ifstream file("/proc/self/status");
    std::string line;
    size_t length = std::strlen(field);
    while (std::getline(file, line)) {
        if (line.compare(0, length, field) == 0 && line[length] == ':') {
            return std::atol(line.c_str() + length + 1) * 1024;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    simdjson::padded_string json;
    if (simdjson::padded_string::load(argv[1]).get(json)) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    std::FILE *refs = std::fopen("/proc/self/clear_refs", "w");
    if (refs == nullptr || std::fputs("5", refs) < 0) {
        std::fprintf(stderr, "cannot reset the high-water mark (/proc/self/clear_refs)\n");
        return 1;
    }
    std::fclose(refs);
    long before = status("VmRSS");
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    auto error = parser.parse(json).get(root);
    long peak = status("VmHWM") - before;
    if (error) {
        std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(error));
        return 1;
    }
    const char *name = std::strrchr(argv[1], '/') ? std::strrchr(argv[1], '/') + 1 : argv[1];
    std::printf("| %s | %zu MB | %ld MB | %.2fx |\n", name, json.size() / 1000000, peak / 1000000,
        double(peak) / double(json.size()));
}
