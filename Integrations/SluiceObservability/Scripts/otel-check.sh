#!/usr/bin/env bash
# The observability adapter's end-to-end check through swift-otel, outside CI (swift-otel brings SwiftNIO and
# async-http-client, whose first build takes minutes): requests on loopback through a Sluice client with the adapter
# on swift-otel's tracer, metrics factory and log handler, exported over OTLP/HTTP (protobuf) to a receiver on
# loopback, which then decodes them with `opentelemetry-proto` from PyPI, as a collector would, and checks the spans,
# the traceparent each attempt carried, the metrics and the log records (Scripts/otlp_check.py).
#
#     Integrations/SluiceObservability/Scripts/otel-check.sh
#
# Its Python environment and the receiver's files go in .build-otel-check beside this script (ignored by git).
set -euo pipefail
cd "$(dirname "$0")"
work=.build-otel-check
rm -rf "$work/received" "$work/port" "$work/sent.json" && mkdir -p "$work/received"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet opentelemetry-proto

"$work/venv/bin/python" otlp_check.py serve "$work/received" "$work/port" &
receiver=$!
trap 'kill "$receiver" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    [ -s "$work/port" ] && break
    sleep 0.1
done
[ -s "$work/port" ] || { echo "the receiver did not start" >&2; exit 1; }

swift run --package-path OTelCheck OTelCheck "http://127.0.0.1:$(cat "$work/port")" "$work/sent.json"
kill "$receiver"
wait "$receiver" 2>/dev/null || true
"$work/venv/bin/python" otlp_check.py check "$work/received" "$work/sent.json"
