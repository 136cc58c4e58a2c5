// The peak resident memory simdjson's DOM parse adds, as a multiple of the document's size, measured as
// `Benchmarks/Tools/ParsePeakMemory` measures Sluice's: the kernel's high-water mark is reset after the document is
// built, and the rise above the resident memory before the parse is the parse's own. The document is the short
// records of that tool, built the same way, or a corpus file repeated as the elements of an array. Linux only.
//
//     ParsePeakMemory short_records|FILE [MEGABYTES]
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
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
        std::fprintf(stderr, "usage: %s short_records|FILE [MEGABYTES]\n", argv[0]);
        return 2;
    }
    size_t size = size_t(argc > 2 ? std::atoi(argv[2]) : 200) << 20;
    std::string text = "[";
    text.reserve(size + 4096);
    if (std::strcmp(argv[1], "short_records") == 0) {
        char record[128];
        for (long index = 0; text.size() < size; index++) {
            std::snprintf(record, sizeof record, "%s{\"id\":%ld,\"ok\":%s,\"n\":\"u%ld\",\"v\":[%ld,%ld]}",
                index > 0 ? "," : "", index, index % 3 == 0 ? "true" : "false", index % 100, index % 7, index % 11);
            text += record;
        }
    } else {
        std::ifstream file(argv[1], std::ios::binary);
        std::stringstream contents;
        contents << file.rdbuf();
        std::string element = contents.str();
        if (element.empty()) {
            std::fprintf(stderr, "cannot read %s\n", argv[1]);
            return 1;
        }
        while (text.size() < size) {
            if (text.size() > 1) text += ',';
            text += element;
        }
    }
    text += ']';
    simdjson::padded_string json(text);
    std::string().swap(text);
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
        std::fprintf(stderr, "%s\n", simdjson::error_message(error));
        return 1;
    }
    const char *name = std::strrchr(argv[1], '/') ? std::strrchr(argv[1], '/') + 1 : argv[1];
    std::printf("| %s | %zu MB | %ld MB | %.2fx |\n", name, json.size() / 1000000, peak / 1000000,
        double(peak) / double(json.size()));
}
