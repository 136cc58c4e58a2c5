"""The OTLP/HTTP side of the observability adapter's end-to-end check, decoding with `opentelemetry-proto`.

    python otlp_check.py serve DIR PORT_FILE   receives OTLP/HTTP protobuf exports on a free loopback port (written to
                                               PORT_FILE) into DIR, until SIGTERM
    python otlp_check.py check DIR SENT_JSON   decodes what DIR holds as a collector would, and checks the spans, metrics
                                               and log records against the requests the loopback server received
                                               (SENT_JSON, written by the Swift side); exits 1 on any failure
"""

import gzip
import http.server
import json
import os
import signal
import sys
import threading

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

SIGNALS = {
    "/v1/traces": ("traces", ExportTraceServiceRequest, ExportTraceServiceResponse),
    "/v1/metrics": ("metrics", ExportMetricsServiceRequest, ExportMetricsServiceResponse),
    "/v1/logs": ("logs", ExportLogsServiceRequest, ExportLogsServiceResponse),
}
# The most bytes one export may have: the check's exports are small, and the receiver keeps each on disk.
MAX_BODY = 16 * 1024 * 1024


def serve(directory, port_file):
    os.makedirs(directory, exist_ok=True)
    counter = {"next": 0}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            signal_name = SIGNALS.get(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            if signal_name is None or self.headers.get("Content-Type") != "application/x-protobuf":
                self.send_error(404 if signal_name is None else 415)
                return
            if length <= 0 or length > MAX_BODY:
                self.send_error(413)
                return
            body = self.rfile.read(length)
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            name, request_type, response_type = signal_name
            request_type.FromString(body)  # refuse what does not decode, as a collector does
            with lock:
                counter["next"] += 1
                path = os.path.join(directory, "%s-%04d.pb" % (name, counter["next"]))
            with open(path, "wb") as out:
                out.write(body)
            answer = response_type().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file, "w") as out:
        out.write(str(server.server_address[1]))
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    server.serve_forever()


def attributes(entries):
    values = {}
    for entry in entries:
        value = entry.value
        kind = value.WhichOneof("value")
        values[entry.key] = getattr(value, kind) if kind else None
    return values


def load(directory, prefix, request_type):
    requests = []
    for name in sorted(os.listdir(directory)):
        if name.startswith(prefix + "-"):
            with open(os.path.join(directory, name), "rb") as body:
                requests.append(request_type.FromString(body.read()))
    return requests


class Checker:
    def __init__(self):
        self.failures = []
        self.passed = 0

    def expect(self, condition, what):
        if condition:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAILED:", what)


def check(directory, sent_path):
    with open(sent_path) as sent_file:
        sent = json.load(sent_file)
    port = sent["port"]
    c = Checker()

    spans = []
    for request in load(directory, "traces", ExportTraceServiceRequest):
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            c.expect(resource.get("service.name") == "sluice-otel-check", "the spans' service.name")
            for scope_spans in resource_spans.scope_spans:
                spans.extend(scope_spans.spans)
    by_id = {span.span_id: span for span in spans}

    def children(span, name=None):
        found = [s for s in spans if s.parent_span_id == span.span_id and (name is None or s.name == name)]
        return sorted(found, key=lambda s: s.start_time_unix_nano)

    roots = [s for s in spans if s.name == "otel-check"]
    c.expect(len(roots) == 1, "one root span named otel-check, got %d" % len(roots))
    if not roots:
        return c
    root = roots[0]
    requests = children(root)
    c.expect(
        [s.name for s in requests] == ["GET /users/{id}", "GET", "GET"],
        "the three request spans under the root: %s" % [s.name for s in requests],
    )
    c.expect(all(s.kind == Span.SPAN_KIND_CLIENT for s in requests), "the request spans are of kind client")
    c.expect(all(s.trace_id == root.trace_id for s in spans), "every span in the root's trace")
    for span in spans:
        if span.parent_span_id:
            parent = by_id.get(span.parent_span_id)
            c.expect(parent is not None, "the parent of %s was exported" % span.name)
            if parent is not None:
                c.expect(
                    parent.start_time_unix_nano <= span.start_time_unix_nano
                    and span.end_time_unix_nano <= parent.end_time_unix_nano,
                    "%s lies within %s" % (span.name, parent.name),
                )

    attempts = []
    for request in requests:
        stages = [s.name for s in children(request)]
        c.expect(stages[:2] == ["build", "transport"], "the stages of %s: %s" % (request.name, stages))
        transport = children(request, "transport")
        if transport:
            attempts.append(children(transport[0]))
    if len(attempts) == 3:
        plain, retried, redirected = attempts
        c.expect(len(plain) == 1, "one attempt for the plain request")
        first = attributes(plain[0].attributes) if plain else {}
        c.expect(first.get("http.request.method") == "GET", "the attempt's http.request.method")
        c.expect(first.get("server.address") == "127.0.0.1", "the attempt's server.address")
        c.expect(first.get("server.port") == port, "the attempt's server.port")
        c.expect(first.get("url.template") == "/users/{id}", "the attempt's url.template")
        c.expect(first.get("http.response.status_code") == 200, "the attempt's http.response.status_code")
        c.expect(first.get("network.protocol.version") == "1.1", "the attempt's network.protocol.version")
        c.expect(plain and plain[0].kind == Span.SPAN_KIND_CLIENT, "the attempt is of kind client")
        connection = children(plain[0], "connection") if plain else []
        c.expect(len(connection) == 1, "the plain attempt's connection span")

        c.expect(len(retried) == 2, "two attempts for the retried request, got %d" % len(retried))
        if len(retried) == 2:
            busy, retry = (attributes(s.attributes) for s in retried)
            c.expect(retried[0].status.code == Status.STATUS_CODE_ERROR, "the 503 attempt's status is error")
            c.expect(busy.get("error.type") == "503", "the 503 attempt's error.type")
            c.expect("http.request.resend_count" not in busy, "no resend count on the first attempt")
            c.expect(retry.get("http.request.resend_count") == 1, "the retry's http.request.resend_count")
            c.expect(retried[1].status.code == Status.STATUS_CODE_UNSET, "the retry's status is unset")
        c.expect(len(redirected) == 2, "two attempts for the redirected request, got %d" % len(redirected))
        if len(redirected) == 2:
            hop = attributes(redirected[1].attributes)
            c.expect(hop.get("sluice.attempt.redirect_hop") == 1, "the redirect's hop")
            c.expect(hop.get("url.full") == "http://127.0.0.1:%d/new" % port, "the redirect's url.full")

        # What the loopback server received: each attempt's own traceparent, in the order sent.
        wire = [r["traceparent"] for r in sent["requests"]]
        exported = [
            "00-%s-%s-01" % (s.trace_id.hex(), s.span_id.hex()) for group in attempts for s in group
        ]
        c.expect(wire == exported, "the traceparent of each attempt on the wire:\n  %s\n  %s" % (wire, exported))

    points = {}
    for request in load(directory, "metrics", ExportMetricsServiceRequest):
        for resource_metrics in request.resource_metrics:
            for scope_metrics in resource_metrics.scope_metrics:
                for metric in scope_metrics.metrics:
                    points.setdefault(metric.name, []).append(metric)
    durations = [p for m in points.get("http.client.request.duration", []) for p in m.histogram.data_points]
    c.expect(durations, "http.client.request.duration was exported as a histogram")
    advised = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
    c.expect(
        all(list(p.explicit_bounds) == advised for p in durations),
        "the duration histogram's bounds: %s" % sorted({tuple(p.explicit_bounds) for p in durations}),
    )
    # Cumulative temporality: the last export holds the totals.
    last = {}
    for point in durations:
        key = tuple(sorted((k, str(v)) for k, v in attributes(point.attributes).items()))
        last[key] = point
    c.expect(sum(p.count for p in last.values()) == 5, "five attempts measured, got %d" % sum(p.count for p in last.values()))
    # The three 200s (the plain request, the retry, the redirect's second hop) share their dimensions.
    counts = {str(dict(k).get("http.response.status_code")): p.count for k, p in last.items()}
    c.expect(counts == {"200": 3, "302": 1, "503": 1}, "the durations by status code: %s" % counts)
    failed = [dict(k) for k in last if dict(k).get("http.response.status_code") == "503"]
    c.expect(failed and failed[0].get("error.type") == "503", "the 503 duration's error.type")
    c.expect(
        all(dict(k).get("url.scheme") == "http" and dict(k).get("server.address") == "127.0.0.1" for k in last),
        "the durations' url.scheme and server.address",
    )
    active = [p for m in points.get("http.client.active_requests", []) for p in m.gauge.data_points]
    c.expect(active and active[-1].as_double == 0, "no request active at the end")
    c.expect("http.client.open_connections" in points, "http.client.open_connections was exported")

    records = []
    for request in load(directory, "logs", ExportLogsServiceRequest):
        for resource_logs in request.resource_logs:
            for scope_logs in resource_logs.scope_logs:
                records.extend(scope_logs.log_records)
    finished = [r for r in records if r.body.string_value == "request finished"]
    c.expect(len(finished) == 3, "three 'request finished' records, got %d" % len(finished))
    request_ids = {s.span_id for s in requests}
    c.expect(
        all(r.span_id in request_ids for r in finished),
        "each 'request finished' record carries its request span's id",
    )
    c.expect(
        all(attributes(r.attributes).get("sluice.request.id") is not None for r in finished),
        "each 'request finished' record carries sluice.request.id",
    )
    opened = [r for r in records if r.body.string_value == "connection opened"]
    c.expect(opened and not opened[0].span_id, "the pool's 'connection opened' record belongs to no span")
    return c


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        result = check(sys.argv[2], sys.argv[3])
        print("%d passed, %d failed" % (result.passed, len(result.failures)))
        sys.exit(1 if result.failures else 0)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
