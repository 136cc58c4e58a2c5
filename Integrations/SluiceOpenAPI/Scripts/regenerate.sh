#!/usr/bin/env bash
# Generates the tests' client, server and types from Tests/Catalog/openapi.yaml into
# Tests/SluiceOpenAPITests/Generated, with swift-openapi-generator's command line tool.
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

output=Tests/SluiceOpenAPITests/Generated
rm -f "$output"/*.swift
"$tool_dir/.build/debug/swift-openapi-generator" generate Tests/Catalog/openapi.yaml \
    --config Tests/Catalog/openapi-generator-config.yaml \
    --output-directory "$output"
