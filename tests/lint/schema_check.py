"""A small JSON Schema validator for the subset docs/report.schema.json uses (the standard
library has no jsonschema): type (one or a list), const, enum, properties, required,
additionalProperties (false or a schema), items, minItems, maxItems, minimum, minLength, pattern,
and $ref to "#/$defs/NAME" (docs/dump.schema.json uses the item counts and minLength).
As in JSON Schema, a keyword applies only to values of the type it is about (so `required`
is ignored for a null). validate() returns a list of "path: problem" strings, empty when valid.
"""
import re

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}

KNOWN = {"$schema", "$id", "$defs", "title", "description", "type", "const", "enum", "properties",
         "required", "additionalProperties", "items", "minItems", "maxItems", "minimum", "minLength",
         "pattern", "$ref"}


def validate(value, schema, root=None, path="$"):
    root = root if root is not None else schema
    errors = []
    unknown = set(schema) - KNOWN
    if unknown:
        return ["%s: the schema uses keywords this validator does not know: %s" % (path, sorted(unknown))]
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            return ["%s: unsupported $ref %s" % (path, ref)]
        errors += validate(value, root["$defs"][ref[len("#/$defs/"):]], root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](value) for t in types):
            return errors + ["%s: %r is not of type %s" % (path, _short(value), "/".join(types))]
    if "const" in schema and value != schema["const"]:
        errors.append("%s: %r is not %r" % (path, _short(value), schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r is not one of %s" % (path, _short(value), schema["enum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: missing required %r" % (path, key))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, v in value.items():
            if key in props:
                errors += validate(v, props[key], root, "%s.%s" % (path, key))
            elif extra is False:
                errors.append("%s: unexpected property %r" % (path, key))
            elif isinstance(extra, dict):
                errors += validate(v, extra, root, "%s.%s" % (path, key))
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            errors += validate(v, schema["items"], root, "%s[%d]" % (path, i))
    if isinstance(value, list) and len(value) < schema.get("minItems", 0):
        errors.append("%s: %d items, fewer than %d" % (path, len(value), schema["minItems"]))
    if isinstance(value, list) and "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append("%s: %d items, more than %d" % (path, len(value), schema["maxItems"]))
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        errors.append("%s: %r is shorter than %d" % (path, _short(value), schema["minLength"]))
    if _TYPES["number"](value) and "minimum" in schema and value < schema["minimum"]:
        errors.append("%s: %r is below the minimum %r" % (path, value, schema["minimum"]))
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append("%s: %r does not match %s" % (path, _short(value), schema["pattern"]))
    return errors


def _short(v):
    s = repr(v)
    return s if len(s) < 80 else s[:77] + "..."
