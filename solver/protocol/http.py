"""The engine protocol over HTTP: a Starlette app around one `EngineSession`.

    POST /v1/<command>   body: the command's fields        (e.g. POST /v1/legal {"game": "g1", "player": 0})
    POST /v1             body: a whole request with "cmd"  (same messages as JSON Lines)
    GET  /v1/hello       the hello answer
    GET  /openapi.json   an OpenAPI 3.1 description, generated from `tacocat.protocol.session.COMMANDS`

Every answer is the protocol's response object (`{"id", "ok", "cmd",
"result" | "error"}`); the HTTP status mirrors the error code
(`HTTP_STATUS`).  Searches run in the thread pool, off the event loop, so
other requests are served meanwhile; at most `max_searches` run at once (more
answer 503 busy), each capped at `max_time_ms`.  A search whose client
disconnects is stopped.  Bodies over `max_body` bytes answer 413.  Needs the
`serve` extra (starlette, uvicorn)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.responses import Response as HTTPResponse
from starlette.routing import Route

from tacocat import __version__
from tacocat.protocol.session import (
    COMMANDS,
    ERROR_CODES,
    PROTOCOL_VERSION,
    EngineSession,
    Response,
    SearchJob,
    decode_request,
    encode_response,
    error_response,
)

DEFAULT_MAX_BODY = 1 << 20
DEFAULT_MAX_TIME_MS = 10_000

HTTP_STATUS = {
    "bad_json": 400,
    "unknown_command": 404,
    "missing_field": 422,
    "bad_field": 422,
    "illegal_action": 409,
    "impossible_position": 422,
    "bad_ruleset": 422,
    "bad_record": 422,
    "forbidden": 403,
    "busy": 503,
    "internal": 500,
}


class BodyTooLarge(Exception):
    pass


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge
    return bytes(body)


def _respond(response: Response, status: int | None = None) -> HTTPResponse:
    if status is None:
        status = 200 if response.get("ok") else HTTP_STATUS.get(response["error"]["code"], 500)
    return HTTPResponse(encode_response(response), status_code=status, media_type="application/json")


def create_app(
    session: EngineSession | None = None,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    max_time_ms: int | None = DEFAULT_MAX_TIME_MS,
    max_searches: int = 4,
    max_games: int = 1000,
) -> Starlette:
    """The ASGI app.  Without `session`, a new one with the given limits."""
    if session is None:
        session = EngineSession(max_games=max_games, max_searches=max_searches, max_time_ms=max_time_ms)
    session.transport_limits["max_body_bytes"] = max_body
    session.quit_ends_session = False  # one client must not end a shared server

    async def run(request: Request, payload: Any) -> HTTPResponse:
        prepared = await run_in_threadpool(session.prepare, payload)
        if not isinstance(prepared, SearchJob):
            return _respond(prepared)
        task = asyncio.ensure_future(run_in_threadpool(prepared.run))
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=0.2)
                if done:
                    break
                if not prepared.stop_event.is_set() and await request.is_disconnected():
                    prepared.stop_event.set()  # nobody is waiting for the answer
        except BaseException:  # cancelled with the connection: free the slot
            prepared.stop_event.set()
            raise
        return _respond(task.result())

    async def read_payload(request: Request) -> Any:
        try:
            body = await _read_body(request, max_body)
        except BodyTooLarge:
            too_large = _respond(error_response(None, "bad_json", f"request body larger than {max_body} bytes"))
            too_large.status_code = 413
            return too_large
        if not body.strip():
            return {}
        payload, bad = decode_request(body)
        return _respond(bad) if bad is not None else payload

    async def any_command(request: Request) -> HTTPResponse:
        payload = await read_payload(request)
        if isinstance(payload, HTTPResponse):
            return payload
        return await run(request, payload)

    async def one_command(request: Request) -> HTTPResponse:
        name = request.path_params["cmd"]
        payload = await read_payload(request)
        if isinstance(payload, HTTPResponse):
            return payload
        if not isinstance(payload, dict):
            return _respond(error_response(None, "bad_json", f"the body must be a JSON object, got {type(payload).__name__}", None))
        if name not in COMMANDS:
            return _respond(error_response(payload.get("id"), "unknown_command",
                                           f"no command {name!r}; commands: {', '.join(COMMANDS)}", None, "cmd"))
        if payload.get("cmd", name) != name:
            return _respond(error_response(payload.get("id"), "bad_field",
                                           f"body says cmd {payload['cmd']!r} but the path says {name!r}", name, "cmd"))
        return await run(request, {**payload, "cmd": name})

    async def hello(request: Request) -> HTTPResponse:
        return _respond(session.handle({"cmd": "hello"}))

    async def openapi_json(request: Request) -> HTTPResponse:
        return JSONResponse(openapi())

    routes = [
        Route("/v1", any_command, methods=["POST"]),
        Route("/v1/hello", hello, methods=["GET"]),
        Route("/v1/{cmd}", one_command, methods=["POST"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
    ]
    async def no_route(request: Request, exc: Exception) -> HTTPResponse:
        # A path or method the API does not have still answers a protocol
        # object (never Starlette's plain text or a redirect).
        status = getattr(exc, "status_code", 404)
        what = "method" if status == 405 else "path"
        return _respond(error_response(None, "unknown_command", f"no {what} {request.method} {request.url.path[:80]!r}: "
                                       "POST /v1/<command> or /v1; GET /v1/hello, /openapi.json", None), status)

    app = Starlette(routes=routes, exception_handlers={404: no_route, 405: no_route})
    app.router.redirect_slashes = False  # /v1/ is not /v1: no 307 to follow
    app.state.session = session
    return app


# --------------------------------------------------------------------------
# OpenAPI, generated from the command table.


def _request_schema(name: str, with_cmd: bool) -> dict:
    command = COMMANDS[name]
    props: dict[str, Any] = {"id": {"type": ["string", "integer", "number", "null"], "description": "Echoed in the answer."}}
    if with_cmd:
        props["cmd"] = {"const": name}
    for f in command.fields:
        schema: dict[str, Any] = {"type": list(f.types) if len(f.types) > 1 else f.types[0], "description": f.doc}
        if f.enum is not None:
            schema["enum"] = list(f.enum)
        if f.minimum is not None:
            schema["minimum"] = f.minimum
        props[f.name] = schema
    required = [f.name for f in command.fields if f.required] + (["cmd"] if with_cmd else [])
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


_RESPONSE_SCHEMA = {
    "type": "object",
    "required": ["id", "ok"],
    "properties": {
        "id": {"description": "The request's id, echoed."},
        "ok": {"type": "boolean"},
        "cmd": {"type": "string"},
        "result": {"type": "object", "description": "When ok: the command's result (docs/protocol.md)."},
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "enum": list(ERROR_CODES)},
                "message": {"type": "string"},
                "field": {"type": "string"},
            },
        },
        "stopped": {"type": "boolean", "description": "Searches: ended early by stop or the time cap."},
    },
}


def openapi() -> dict:
    """The OpenAPI 3.1 description of the HTTP transport."""
    responses = {
        "200": {"description": "ok: true", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Response"}}}},
        "default": {
            "description": "ok: false; the status mirrors error.code: "
            + ", ".join(f"{code} {status}" for code, status in HTTP_STATUS.items())
            + ", and 413 for a body over the size limit",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Response"}}},
        },
    }
    paths: dict[str, Any] = {
        "/v1": {
            "post": {
                "summary": "Any command: the body is a whole request with cmd (as in JSON Lines).",
                "operationId": "request",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "oneOf": [{"$ref": f"#/components/schemas/{name}_request"} for name in COMMANDS]}}}},
                "responses": responses,
            }
        },
        "/v1/hello": {"get": {"summary": COMMANDS["hello"].doc, "operationId": "hello_get", "responses": responses}},
    }
    schemas: dict[str, Any] = {"Response": _RESPONSE_SCHEMA}
    for name, command in COMMANDS.items():
        schemas[f"{name}_request"] = _request_schema(name, with_cmd=True)
        example = {k: v for k, v in command.example.items() if k != "cmd"}
        paths[f"/v1/{name}"] = {
            "post": {
                "summary": command.doc,
                "operationId": name,
                "requestBody": {"required": False, "content": {"application/json": {
                    "schema": _request_schema(name, with_cmd=False), "example": example}}},
                "responses": responses,
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "tacocat engine protocol",
            "version": PROTOCOL_VERSION,
            "description": f"Engine {__version__}. The JSON Lines protocol of `tacocat engine` over HTTP; "
            "every message is described in docs/protocol.md.",
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }
