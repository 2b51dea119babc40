"""Check responses against the OpenAPI document (``service.web.openapi.build()``).

:func:`check_response` finds the documented operation of a request (method and path, the
path matched against the document's templates, fixed segments before parameters), then
checks the response: its status is documented for the operation, its media type is one of
the documented ones, the headers marked required are there, and a JSON body validates
against the schema (jsonschema, Draft 2020-12, the dialect of OpenAPI 3.1). Compiled
validators are cached, so checking every response of the suite stays cheap.

A request that matches no documented operation (an unknown route, a method no route
takes) and answers JSON must answer with a problem body that validates against ``Problem``;
the HTML pages and their files (``service/web/pages``) are not part of the API.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from service.web import openapi

DOC_URI = "urn:kibitz:openapi"


@functools.cache
def document() -> dict[str, Any]:
    """The document, built once per test session."""
    return openapi.build()


@functools.cache
def _registry() -> Registry[Any]:
    return Registry().with_resource(DOC_URI, Resource.from_contents(document(), default_specification=DRAFT202012))


@functools.cache
def _templates() -> list[tuple[re.Pattern[str], str]]:
    """Document paths as regexes, fixed ones first (``/games/import`` before ``/games/{game_id}``)."""
    paths = sorted(document()["paths"], key=lambda path: (path.count("{"), path))
    return [(re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$"), path) for path in paths]


def operation(method: str, path: str) -> tuple[str, dict[str, Any]] | None:
    """The document's ``(template, operation)`` for ``method path``, or None. The first
    template that matches the path decides (``GET /games/import`` is no game lookup)."""
    for pattern, template in _templates():
        if pattern.match(path):
            found = document()["paths"][template].get(method.lower())
            return (template, found) if found is not None else None
    return None


@functools.cache
def validator(pointer: str) -> Draft202012Validator:
    """A compiled validator for the schema at JSON pointer ``pointer`` in the document."""
    return Draft202012Validator({"$ref": f"{DOC_URI}#{pointer}"}, registry=_registry())


def _resolve(item: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Follow one ``$ref`` to ``#/components/responses/...``; returns the object and its pointer."""
    ref = item.get("$ref")
    if ref is None:
        return item, ""
    name = ref.rsplit("/", 1)[1]
    return document()["components"]["responses"][name], f"/components/responses/{name}"


def _pointer_escape(text: str) -> str:
    return text.replace("~", "~0").replace("/", "~1")


def check_response(method: str, path: str, status: int, media_type: str | None, headers: Any, body: bytes) -> None:
    """Raise ``AssertionError`` if this response does not fit the document (see module)."""
    if method.upper() in ("HEAD", "OPTIONS"):
        return
    media_type = media_type or ""
    found = operation(method, path)
    if found is None:
        if not (media_type == openapi.JSON or media_type.endswith("+json")):
            return  # the pages and their static files (service/web/pages) are not part of the API
        assert media_type == openapi.PROBLEM, f"{method} {path} -> {status} {media_type}: undocumented, not a problem"
        _validate("/components/schemas/Problem", body, f"{method} {path} -> {status}")
        return
    template, op = found
    documented = op["responses"].get(str(status))
    assert documented is not None, f"{method} {path} -> {status}: status not documented for {method} {template} " \
                                   f"({', '.join(op['responses'])}): {body[:300]!r}"
    response, base = _resolve(documented)
    if not base:
        base = f"/paths/{_pointer_escape(template)}/{method.lower()}/responses/{status}"
    content = response.get("content", {})
    if content:
        assert media_type in content, f"{method} {path} -> {status}: {media_type} is not one of {sorted(content)}"
    for name, header in response.get("headers", {}).items():
        if header.get("required"):
            assert name in headers, f"{method} {path} -> {status}: header {name} missing"
            value = headers[name]
            errors = list(Draft202012Validator(header["schema"]).iter_errors(value))
            assert not errors, f"{method} {path} -> {status}: header {name}: {value!r}: {errors[0].message}"
    if media_type in content and (media_type == openapi.JSON or media_type.endswith("+json")):
        schema = content[media_type].get("schema")
        if schema is not None:
            _validate(f"{base}/content/{_pointer_escape(media_type)}/schema", body, f"{method} {path} -> {status}")


def _validate(pointer: str, body: bytes, what: str) -> None:
    instance = json.loads(body)
    error = next(iter(validator(pointer).iter_errors(instance)), None)
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path)
        raise AssertionError(f"{what}: the body does not fit the OpenAPI document at {where or '(root)'}: "
                             f"{error.message[:500]}")
