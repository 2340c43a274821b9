#!/usr/bin/env python3
"""The pets service (spec/service.md, spec/openapi.yaml) in Python's standard library alone.

The small server an implementer writes first: http.server's ThreadingHTTPServer, one thread per
connection, the pets in a dict. By default it keeps the library's own defaults, a listen backlog of 5
and HTTP/1.0 (one request per connection), which is how most such servers meet the suite; --backlog
and --http11 give it the room and the keep-alive a tuned one has. Written from the service document
and the OpenAPI file, not from the reference implementation; conformant in its behaviour (MUST and
SHOULD), which the project's own tests hold it to (test/cli/small-server.test.ts).

    python3 test/servers/python/petstore.py [--port 0] [--backlog 5] [--http11] [--leave-body-unread]

Once listening it prints its base URL (http://127.0.0.1:<port>/v1) on a line of its own.
--leave-body-unread plants one fault, for the tests: a request answered 405 has its body left unread,
so on a kept-alive connection (--http11) the next request is read from where that body begins.
"""

import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
STATUSES = ("available", "pending", "sold")
# A pet needs a few hundred bytes; a larger body is refused before it is read.
MAX_BODY_BYTES = 8 * 1024
DEFAULT_LIMIT = 100
MAX_LIMIT = 100
# showPetById is deprecated (service.md, Versioning): since 2026-01-01, sunset a year later.
DEPRECATION = {"Deprecation": "@1767225600", "Sunset": "Fri, 01 Jan 2027 00:00:00 GMT"}
INTEGER = re.compile(r"-?[0-9]+")


class Store:
    """The pets in the order they were created, each kept as the JSON text it is served as."""

    def __init__(self):
        self._lock = threading.Lock()
        self._pets = {}

    def add(self, pet_id, text):
        with self._lock:
            if pet_id in self._pets:
                return False
            self._pets[pet_id] = text
            return True

    def get(self, pet_id):
        with self._lock:
            return self._pets.get(pet_id)

    def page(self, limit):
        with self._lock:
            texts = []
            for text in self._pets.values():
                if len(texts) >= limit:
                    break
                texts.append(text)
        return "[" + ",".join(texts) + "]"


class BadBody(Exception):
    """A body that is not a pet: 400, with what is wrong."""


def refuse_constant(name):
    raise BadBody(f"{name} is not JSON")


def unique_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise BadBody("a key is repeated")
    return dict(pairs)


PET_MEMBERS = ("id", "name", "tag", "status")


def read_pet(body):
    """The pet a body holds, or BadBody saying why it is not one."""
    try:
        text = body.decode("utf-8")
        value = json.loads(text, parse_constant=refuse_constant, object_pairs_hook=unique_keys)
    except BadBody:
        raise
    except (ValueError, RecursionError) as error:
        raise BadBody(f"the body is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise BadBody("the body is not a JSON object")
    pet_id = value.get("id")
    # bool is an int in Python, not in JSON.
    if type(pet_id) is not int:
        raise BadBody("id must be an integer")
    if not INT64_MIN <= pet_id <= INT64_MAX:
        raise BadBody("id must be an int64")
    if not isinstance(value.get("name"), str):
        raise BadBody("name must be a string")
    if "tag" in value and not isinstance(value["tag"], str):
        raise BadBody("tag must be a string")
    if "status" in value and value["status"] not in STATUSES:
        raise BadBody("status must be available, pending or sold")
    # The Pet's own members, nothing else: a member the Pet does not have is not stored (a number
    # beyond a double in one would read as inf, and be written back as Infinity, which is not JSON).
    return {name: value[name] for name in PET_MEMBERS if name in value}


class Handler(BaseHTTPRequestHandler):
    server_version = "pets-python/1"
    store = Store()
    leave_body_unread = False

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.route("GET")

    def do_HEAD(self):
        self.route("HEAD")

    def do_POST(self):
        self.route("POST")

    def do_PUT(self):
        self.route("PUT")

    def do_PATCH(self):
        self.route("PATCH")

    def do_DELETE(self):
        self.route("DELETE")

    def do_OPTIONS(self):
        self.route("OPTIONS")

    def do_TRACE(self):
        self.route("TRACE")

    def route(self, method):
        path, _, query = self.path.partition("?")
        if method == "POST" and path == "/v1/pets":
            return self.create()
        reads = method in ("GET", "HEAD")
        pets = path == "/v1/pets" or path.startswith("/v1/pets/")
        # Every other request's body is read and dropped: its answer does not depend on it (but for
        # the fault: a 405 leaves it unread).
        if not (self.leave_body_unread and pets and not reads):
            self.drain()
        if path == "/v1/pets":
            if reads:
                return self.list_pets(query)
            return self.problem(405, headers={"Allow": "GET, HEAD, POST"})
        if path.startswith("/v1/pets/"):
            pet_id = path[len("/v1/pets/"):]
            if reads:
                return self.show(pet_id)
            return self.problem(405, headers={"Allow": "GET, HEAD"})
        if reads and path == "/v1/store/orders":
            return self.send(200, "[]")
        return self.problem(404)

    def list_pets(self, query):
        values = parse_qs(query, keep_blank_values=True).get("limit")
        limit = DEFAULT_LIMIT
        if values is not None:
            if not INTEGER.fullmatch(values[0]):
                return self.problem(400, "limit must be an integer")
            limit = int(values[0])
            if limit > MAX_LIMIT:
                return self.problem(400, f"limit must be at most {MAX_LIMIT}")
        self.send(200, self.store.page(limit))

    def show(self, pet_id):
        text = self.store.get(unquote(pet_id))
        if text is None:
            return self.problem(404, headers=DEPRECATION)
        self.send(200, text, DEPRECATION)

    def create(self):
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self.close_connection = True
            return self.problem(411, "a body with a Content-Length is required")
        if int(length) > MAX_BODY_BYTES:
            # Answered at once; the body is never read, and the connection closes.
            self.close_connection = True
            return self.problem(413, f"a body is at most {MAX_BODY_BYTES} bytes")
        body = self.rfile.read(int(length))
        if kind != "application/json":
            return self.problem(415)
        try:
            pet = read_pet(body)
        except BadBody as error:
            return self.problem(400, str(error))
        text = json.dumps(pet, separators=(",", ":"))
        if not self.store.add(str(pet["id"]), text):
            return self.problem(409, f"a pet with id {pet['id']} exists already")
        self.send(201, text, {"Location": f"/v1/pets/{pet['id']}"})

    def drain(self):
        length = self.headers.get("Content-Length")
        if length is not None and length.isdigit() and int(length) <= MAX_BODY_BYTES:
            self.rfile.read(int(length))
        elif length is not None:
            self.close_connection = True

    def problem(self, status, detail=None, headers=None):
        phrase = self.responses.get(status, ("Error",))[0]
        body = {"title": phrase, "status": status}
        if detail is not None:
            body["detail"] = detail
        self.send(status, json.dumps(body), headers, "application/problem+json")

    def send(self, status, text, headers=None, kind="application/json"):
        data = text.encode("ascii")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_error(self, code, message=None, explain=None):
        # The library's own errors (a request line it cannot read, a method it has no do_ for) as
        # problem+json rather than its HTML page.
        self.close_connection = True
        self.problem(code, message)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--backlog", type=int, default=None, help="listen backlog (the library's: 5)")
    parser.add_argument("--http11", action="store_true", help="HTTP/1.1 with keep-alive (the library's: 1.0)")
    parser.add_argument("--leave-body-unread", action="store_true", help="a fault: 405 leaves the body unread")
    args = parser.parse_args()
    Handler.leave_body_unread = args.leave_body_unread
    if args.http11:
        Handler.protocol_version = "HTTP/1.1"
    if args.backlog is not None:
        ThreadingHTTPServer.request_queue_size = args.backlog
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print(f"http://{args.host}:{server.server_address[1]}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
