#!/usr/bin/env bash
# Generates the code of the package's OpenAPI documents with swift-openapi-generator's command line tool: the tests'
# client, server and types from Tests/Catalog/openapi.yaml into Tests/SluiceOpenAPITests/Generated, the httpbin
# tests' client from Tests/HTTPBin/openapi.yaml into Tests/SluiceOpenAPIHTTPBinTests/Generated, and the benchmark's
# client from Benchmark/openapi.yaml into Sources/SluiceOpenAPIBench/Generated.
#
# The generated files are committed, so that neither a build nor CI runs the generator: its build plugin takes minutes
# on two cores. Run this after changing the document or its configuration, and commit what it writes.
#
# The tool is built once in a scratch package of its own, outside the repository (SLUICE_OPENAPI_GENERATOR_DIR,
# /tmp/sluice-openapi-generator by default), at the version the files were made with.
set -euo pipefail
cd "$(dirname "$0")/.."

generator_version=1.14.3
tool_dir=${SLUICE_OPENAPI_GENERATOR_DIR:-/tmp/sluice-openapi-generator}
mkdir -p "$tool_dir"
cat >"$tool_dir/Package.swift" <<MANIFEST
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "sluice-openapi-generator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "$generator_version")],
    targets: []
)
MANIFEST
swift build --package-path "$tool_dir" --product swift-openapi-generator

# Each document, with the configuration beside it, and where its code goes.
generate() {
    local document_dir=$1 output=$2
    rm -f "$output"/*.swift
    "$tool_dir/.build/debug/swift-openapi-generator" generate "$document_dir/openapi.yaml" \
        --config "$document_dir/openapi-generator-config.yaml" \
        --output-directory "$output"
}
generate Tests/Catalog Tests/SluiceOpenAPITests/Generated
generate Tests/HTTPBin Tests/SluiceOpenAPIHTTPBinTests/Generated
generate Benchmark Sources/SluiceOpenAPIBench/Generated
