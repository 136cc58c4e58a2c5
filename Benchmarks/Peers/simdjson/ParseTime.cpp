// Times simdjson's DOM parse of a file: the best and the median of a number of parses into one reused parser, the
// kernel simdjson picked for this processor (or the one SIMDJSON_FORCE_IMPLEMENTATION names) named in the output.
//
//     ParseTime FILE [PARSES]
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE [PARSES]\n", argv[0]);
        return 2;
    }
    simdjson::padded_string json;
    if (simdjson::padded_string::load(argv[1]).get(json)) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    int parses = argc > 2 ? std::atoi(argv[2]) : 1000;
    simdjson::dom::parser parser;
    std::vector<double> micros;
    for (int index = 0; index < parses; index++) {
        auto start = std::chrono::steady_clock::now();
        simdjson::dom::element root;
        auto error = parser.parse(json).get(root);
        auto end = std::chrono::steady_clock::now();
        if (error) {
            std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(error));
            return 1;
        }
        micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    }
    std::sort(micros.begin(), micros.end());
    const char *name = std::strrchr(argv[1], '/') ? std::strrchr(argv[1], '/') + 1 : argv[1];
    std::printf("| %s | %s | %.0f µs | %.0f µs |\n", name, simdjson::get_active_implementation()->name().c_str(),
        micros.front(), micros[micros.size() / 2]);
}
