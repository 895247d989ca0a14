"""The HTTP side of the tests' scheduler extenders (kube-scheduler v1.20's extender protocol:
a POST per verb, JSON both ways), so that each test's extender is only its decisions.

    import extender_http
    extender_http.serve(port, answer, threaded=False)

answer(path, args) gets the verb's path ("/filter", "/prioritize", "/preempt", ...) and the
decoded arguments, and returns the reply to send as JSON, or None for a 404 (a verb the
extender does not serve). threaded: one thread per connection, HTTP/1.1 keep-alive (each
scheduler replica keeps its own connection open); otherwise one request at a time,
HTTP/1.0. tests/lib/e2e.sh puts this directory on PYTHONPATH for the programs the
end-to-end scripts run.
"""
import json
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer


def node_names(args):
    """The nodes' names in ExtenderArgs: NodeNames (nodeCacheCapable) or those of Nodes.

    v1.20 sends its untagged types' Go field names, the unused one null.
    """
    names = args.get("NodeNames")
    if names is None:
        names = [n["metadata"]["name"] for n in (args.get("Nodes") or {}).get("items") or []]
    return names


def pod_name(args):
    return (args.get("Pod") or {}).get("metadata", {}).get("name", "")


def serve(port, answer, threaded=False):
    class Handler(BaseHTTPRequestHandler):
        if threaded:
            protocol_version = "HTTP/1.1"

        def do_POST(self):
            args = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = answer(self.path, args)
            if reply is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    if threaded:
        ThreadingHTTPServer.daemon_threads = True
        ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
    else:
        HTTPServer(("127.0.0.1", port), Handler).serve_forever()
