#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate Gregor's Kafka protocol codec from proto/*.gp.

Usage: gen_codec.py --out DIR schema.gp...

For every schema file proto/<stem>.gp it writes DIR/<stem>.h and DIR/<stem>.c:
per message a C struct and init/decode/encode/size/dump functions taking the
version, and for responses carrying error codes an errors walk (Kafka's
errorCounts). DIR/codec_registry.{h,c} list every message and API, and
DIR/api_handlers.c is the broker's dispatch table, from the `serve` lines. The schema
format is described in proto/README.md. Bad schemas fail the build with
"file:line: message".

The generated code is plain: one function per struct per operation, version
checks only where the version can make them false.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

PRIMITIVES = {
    # type: (C type, reader call, writer call, fixed size or None)
    "bool": ("bool", "gr_read_bool", "gr_write_bool", 1),
    "int8": ("int8_t", "gr_read_int8", "gr_write_int8", 1),
    "int16": ("int16_t", "gr_read_int16", "gr_write_int16", 2),
    "uint16": ("uint16_t", "gr_read_uint16", "gr_write_uint16", 2),
    "int32": ("int32_t", "gr_read_int32", "gr_write_int32", 4),
    "int64": ("int64_t", "gr_read_int64", "gr_write_int64", 8),
    "float64": ("double", "gr_read_float64", "gr_write_float64", 8),
    "uuid": ("gr_uuid_t", "gr_read_uuid", "gr_write_uuid", 16),
    "string": ("gr_str_t", None, None, None),
    "bytes": ("gr_bytes_t", None, None, None),
    "records": ("gr_records_t", None, None, None),
}
INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
    "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned",
    "void", "volatile", "while", "bool", "true", "false",
}
MAX_VERSION = 0x7FFF
# is_default is only called for some structs (absent or tagged struct fields);
# clang warns about unused static inline functions in .c files.
IS_DEFAULT_DECL = "static inline bool %s_is_default(const %s *in) __attribute__((unused));"


class SchemaError(Exception):
    pass


class Range:
    """An inclusive version range; hi None means open-ended; empty if none."""

    def __init__(self, lo, hi, empty=False):
        self.lo, self.hi, self.empty = lo, hi, empty

    @staticmethod
    def parse(text):
        if text == "none":
            return Range(0, 0, empty=True)
        m = re.fullmatch(r"(\d+)(\+|-(\d+))?", text)
        if not m:
            raise SchemaError("bad version range %r" % text)
        lo = int(m.group(1))
        hi = int(m.group(3)) if m.group(3) else (None if m.group(2) == "+" else lo)
        if max(lo, hi or 0) > MAX_VERSION:
            raise SchemaError("version range %r beyond the int16 version %d" % (text, MAX_VERSION))
        if hi is not None and hi < lo:
            raise SchemaError("empty version range %r" % text)
        return Range(lo, hi)

    def top(self):
        return MAX_VERSION if self.hi is None else self.hi

    def contains(self, v):
        return not self.empty and self.lo <= v <= self.top()

    def covers(self, other):
        """True if every version of other is in self."""
        if other.empty:
            return True
        return not self.empty and self.lo <= other.lo and self.top() >= other.top()

    def intersect(self, other):
        if self.empty or other.empty:
            return Range(0, 0, True)
        lo, hi = max(self.lo, other.lo), min(self.top(), other.top())
        if lo > hi:
            return Range(0, 0, True)
        return Range(lo, None if hi == MAX_VERSION else hi)

    def cond(self, within):
        """C condition on `v` that is true in this range, knowing v is in `within`."""
        r = self.intersect(within)
        if r.empty:
            return "false"
        parts = []
        if r.lo > within.lo:
            parts.append("v >= %d" % r.lo)
        if r.top() < within.top():
            parts.append("v <= %d" % r.top())
        return " && ".join(parts) if parts else "true"

    def __str__(self):
        if self.empty:
            return "none"
        return "%d+" % self.lo if self.hi is None else "%d-%d" % (self.lo, self.hi)


# Schema names become C identifiers through snake(); types and messages are
# CamelCase, so a lower-case type (a misspelt primitive) is not taken as a struct.
NAME_RE = re.compile(r"[A-Z][A-Za-z0-9]*")
FIELD_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def check_name(what, name):
    pattern = FIELD_NAME_RE if what == "field" else NAME_RE
    if not pattern.fullmatch(name):
        raise SchemaError("bad %s name %r (%s)" % (what, name, "letters and digits" if what == "field" else "CamelCase letters and digits"))
    return name


def snake(name):
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


class Field:
    def __init__(self, name, type_text, versions, attrs, about, line):
        self.name, self.versions, self.about, self.line = check_name("field", name), versions, about, line
        self.is_array = type_text.startswith("[]")
        self.type = type_text[2:] if self.is_array else type_text
        if self.type not in PRIMITIVES:
            check_name("type", self.type)
        self.nullable = Range.parse(attrs.pop("nullable", "none"))
        self.tag = None
        if "tag" in attrs:
            tag = attrs.pop("tag")
            if not re.fullmatch(r"\d+", tag):
                raise SchemaError("bad tag %r (a non-negative integer)" % tag)
            self.tag = int(tag)
        self.tagged = Range.parse(attrs.pop("tagged", "none"))
        self.default = attrs.pop("default", None)
        ignorable = attrs.pop("ignorable", None)
        if ignorable not in (None, ""):
            raise SchemaError("ignorable takes no value")
        self.ignorable = ignorable is not None
        flexible = attrs.pop("flexible", None)
        if flexible not in (None, "none"):
            raise SchemaError("field flexible= only takes 'none'")
        self.never_flexible = flexible == "none"
        if attrs:
            raise SchemaError("unknown attribute(s) %s" % ", ".join(sorted(attrs)))
        self.children = []  # inline struct fields
        self.struct = None  # resolved Struct for struct types
        self.c_name = snake(name)
        if self.c_name in C_KEYWORDS:
            self.c_name += "_"

    @property
    def is_struct(self):
        return self.type not in PRIMITIVES


class Struct:
    def __init__(self, c_type, fields, name):
        self.c_type, self.fields, self.name = c_type, fields, name
        self.fn = c_type[:-2]  # function prefix: type without _t
        self.within = None  # versions it can be encoded in: see reach()


class Api:
    """An API file's `api` line, and its `serve` line when the broker serves it."""

    def __init__(self, key, name, stem):
        self.key, self.name, self.stem = key, name, stem
        self.serve = None  # Range of advertised versions
        self.handler = None
        self.serve_line = None

    def const(self):
        return "GR_API_%s" % snake(self.name).upper()


class Message:
    def __init__(self, kind, name, valid, flexible, api_key, line):
        self.kind, self.name, self.valid, self.flexible = kind, name, valid, flexible
        self.api_key, self.line = api_key, line
        self.fields = []
        self.common = {}  # name -> list of fields
        self.common_lines = {}  # name -> "file:line" of its declaration
        self.prefix = "gr_" + snake(name)


class Enum:
    """An `enum <Name> <VALUE>=<n>...` line: protocol values no field type spells out."""

    def __init__(self, name, values, about, line):
        self.name, self.values, self.about, self.line = name, values, about, line
        self.prefix = "gr_" + snake(name)

    def const(self, value_name):
        return "%s_%s" % (self.prefix.upper(), value_name)


ENUM_VALUE_RE = re.compile(r"[A-Z][A-Z0-9_]*")
INT32_MIN, INT32_MAX = -0x80000000, 0x7FFFFFFF


def parse_enum(tokens, about, where):
    """Parses the tokens of an enum line; raises SchemaError on a bad one."""
    if len(tokens) < 2:
        raise SchemaError("expected 'enum <Name> <VALUE>=<n>...'")
    name = check_name("enum", tokens[1])
    if len(tokens) == 2:
        raise SchemaError("enum %s has no values" % name)
    values = []  # (name, number) in schema order
    names, numbers = set(), {}
    for tok in tokens[2:]:
        value, eq, number = tok.partition("=")
        if not eq:
            raise SchemaError("enum %s: expected <VALUE>=<n>, got %r" % (name, tok))
        if not ENUM_VALUE_RE.fullmatch(value):
            raise SchemaError("enum %s: bad value name %r (upper-case letters, digits and _)" % (name, value))
        if not re.fullmatch(r"-?\d+", number) or not INT32_MIN <= int(number) <= INT32_MAX:
            raise SchemaError("enum %s: bad number %r for %s (an int32)" % (name, number, value))
        if value in names:
            raise SchemaError("enum %s: value %s given twice" % (name, value))
        n = int(number)
        if n in numbers:
            raise SchemaError("enum %s: %s and %s are both %d" % (name, numbers[n], value, n))
        names.add(value)
        numbers[n] = value
        values.append((value, n))
    return Enum(name, values, about.strip(), where)


def emit_enums(h, enums):
    """Declares each enum as gr_<name>_t with GR_<NAME>_<VALUE> enumerators."""
    for en in enums:
        h("/* %s%s */" % (en.name, ": " + en.about if en.about else ""))
        h("typedef enum %s {" % en.prefix)
        for value, n in en.values:
            # -2147483648 would be a long literal negated: spell INT32_MIN so it stays an int
            h("    %s = %s," % (en.const(value), "(-2147483647 - 1)" if n == INT32_MIN else n))
        h("} %s_t;" % en.prefix)
        h()


def parse_attrs(tokens):
    attrs = {}
    for tok in tokens:
        k, val = tok.split("=", 1) if "=" in tok else (tok, "")
        if val.startswith('"') and val.endswith('"') and len(val) >= 2:
            val = val[1:-1]
        if k in attrs:
            raise SchemaError("attribute %s given twice" % k)
        attrs[k] = val
    return attrs


def parse_file(path):
    """Returns (api, messages, enums) where api is an Api or None."""
    api = None
    messages = []
    enums = []
    # stack of (versions of the owner, field list) for the block being filled:
    # a field must share a version with its message, struct or parent field.
    stack = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, raw in enumerate(lines, 1):
        where = "%s:%d" % (path, lineno)
        text = raw.rstrip()
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        about = ""
        if " -- " in text:
            text, about = text.split(" -- ", 1)
        indent = len(text) - len(text.lstrip(" "))
        tokens = text.split()
        try:
            if "\t" in raw[:len(raw) - len(raw.lstrip())]:
                raise SchemaError("indent with spaces, not tabs")
            if indent == 0:
                kw = tokens[0]
                if kw == "api":
                    if api or messages or len(tokens) != 3:
                        raise SchemaError("'api <key> <Name>' must come first, once")
                    if not re.fullmatch(r"\d+", tokens[1]) or int(tokens[1]) > 0x7FFF:
                        raise SchemaError("bad API key %r (0 to 32767)" % tokens[1])
                    api = Api(int(tokens[1]), check_name("API", tokens[2]), os.path.splitext(os.path.basename(path))[0])
                elif kw == "serve":
                    if not api or messages or api.serve or len(tokens) != 3:
                        raise SchemaError("'serve <range> <handler>' goes once, right after 'api'")
                    api.serve = Range.parse(tokens[1])
                    if api.serve.empty or api.serve.hi is None:
                        raise SchemaError("served versions must be a closed range")
                    if not re.fullmatch(r"gr_handle_[a-z0-9_]+", tokens[2]):
                        raise SchemaError("bad handler %r (gr_handle_<name>)" % tokens[2])
                    api.handler, api.serve_line = tokens[2], where
                elif kw in ("request", "response", "header", "data"):
                    if len(tokens) != 6 or tokens[2] != "versions" or tokens[4] != "flexible":
                        raise SchemaError("expected '%s <Name> versions <range> flexible <range>'" % kw)
                    if kw in ("request", "response") and not api:
                        raise SchemaError("%s needs an 'api' line first" % kw)
                    valid = Range.parse(tokens[3])
                    if valid.hi is None or valid.empty:
                        raise SchemaError("message versions must be a closed range")
                    flex = Range.parse(tokens[5])
                    if not flex.empty and flex.hi is not None:
                        raise SchemaError("flexible versions must be open-ended ('N+') or none")
                    if not flex.empty and flex.lo > valid.hi:
                        raise SchemaError("flexible from %d, after the last version %d: write 'none'" % (flex.lo, valid.hi))
                    msg = Message(kw, check_name("message", tokens[1]), valid, flex, api.key if api and kw in ("request", "response") else -1, where)
                    messages.append(msg)
                    stack = [(valid, msg.fields)]
                elif kw == "enum":
                    en = parse_enum(tokens, about, where)
                    if any(e.name == en.name for e in enums):
                        raise SchemaError("enum %s declared twice" % en.name)
                    enums.append(en)
                    stack = []  # an enum ends the block above it
                elif kw == "struct":
                    if not messages or len(tokens) != 4 or tokens[2] != "versions":
                        raise SchemaError("expected 'struct <Name> versions <range>' after a message")
                    msg = messages[-1]
                    name = check_name("struct", tokens[1])
                    if name in msg.common:
                        raise SchemaError("struct %s declared twice" % name)
                    versions = Range.parse(tokens[3])
                    if versions.empty:
                        raise SchemaError("struct %s has no versions" % name)
                    msg.common[name] = []
                    msg.common_lines[name] = where
                    stack = [(versions, msg.common[name])]
                else:
                    raise SchemaError("unknown keyword %r" % kw)
                continue
            if indent % 2:
                raise SchemaError("indent must be a multiple of two spaces")
            if not stack:
                raise SchemaError("field outside a message")
            depth = indent // 2
            # depth 1 = top level of the block; deeper = children of the last field
            while len(stack) > depth:
                stack.pop()
            if len(stack) != depth:
                raise SchemaError("field indented too deep")
            if len(tokens) < 3:
                raise SchemaError("expected '<Name> <type> <versions> [attrs]'")
            fld = Field(tokens[0], tokens[1], Range.parse(tokens[2]), parse_attrs(tokens[3:]), about.strip(), where)
            owner = stack[-1][0]
            if not fld.versions.empty and fld.versions.intersect(owner).empty:
                raise SchemaError("field %s has versions %s, none of them in its parent's %s" % (fld.name, fld.versions, owner))
            stack[-1][1].append(fld)
            stack.append((fld.versions, fld.children))
        except (SchemaError, ValueError, IndexError) as e:
            raise SchemaError("%s: %s" % (where, e))
    return api, messages, enums


# --- validation and resolution ---------------------------------------------


def resolve(msg):
    """Resolves struct types of msg; returns the list of Structs, leaves first."""
    structs = []
    seen = {}

    def make(name, fields, where):
        c_type = "%s_%s_t" % (msg.prefix, snake(name))
        if name in seen:
            if seen[name].fields is not fields:
                raise SchemaError("%s: struct %s defined twice in %s" % (where, name, msg.name))
            return seen[name]
        st = Struct(c_type, fields, name)
        seen[name] = st
        walk(fields)
        structs.append(st)
        return st

    def walk(fields):
        names = {}
        tags = set()
        for f in fields:
            check_field(msg, f)
            if f.name in names:
                raise SchemaError("%s: duplicate field %s" % (f.line, f.name))
            # Different schema names may still make the same C member.
            if f.c_name in names.values():
                raise SchemaError("%s: field %s is %s in C, as another field is" % (f.line, f.name, f.c_name))
            names[f.name] = f.c_name
            if f.tag is not None:
                if f.tag in tags:
                    raise SchemaError("%s: duplicate tag %d" % (f.line, f.tag))
                tags.add(f.tag)
            if f.is_struct:
                if f.children:
                    f.struct = make(f.type, f.children, f.line)
                elif f.type in msg.common:
                    if not msg.common[f.type]:
                        raise SchemaError("%s: struct %s has no fields" % (msg.common_lines[f.type], f.type))
                    f.struct = make(f.type, msg.common[f.type], f.line)
                else:
                    raise SchemaError("%s: unknown type %s" % (f.line, f.type))
            elif f.children:
                raise SchemaError("%s: a %s field has no children" % (f.line, f.type))

    walk(msg.fields)
    unused = sorted(set(msg.common) - set(seen))
    if unused:
        raise SchemaError("%s: struct %s is not used by %s" % (msg.common_lines[unused[0]], unused[0], msg.name))
    return structs


def reach(msg, top, structs):
    """Sets each struct's `within`: the versions in which it can be on the wire.

    A nested struct is only decoded or encoded in versions its field is
    present in, so its version checks are made relative to those: a field of
    it present from v2 is unconditional when the struct itself only exists
    from v2. A struct used by several fields gets the hull of their versions,
    a superset, so the checks it keeps stay right.
    """
    top.within = msg.valid
    changed = True
    while changed:  # structs form a DAG, and ranges only grow
        changed = False
        for st in [top] + structs:
            if st.within is None:
                continue
            for f in st.fields:
                r = f.versions.intersect(st.within)
                if not f.struct or r.empty:
                    continue
                old = f.struct.within
                new = r if old is None else Range(min(old.lo, r.lo), max(old.top(), r.top()))
                if old is None or (new.lo, new.top()) != (old.lo, old.top()):
                    f.struct.within = new
                    changed = True
    # Checked once every struct has all its uses: a field no version carries.
    for st in [top] + structs:
        if st.within is None:
            continue  # only reached through such a field, reported at its parent
        for f in st.fields:
            if f.versions.intersect(st.within).empty:
                raise SchemaError("%s: field %s is never on the wire: %s exists in versions %s"
                                  % (f.line, f.name, st.name, st.within))


def check_field(msg, f):
    where = f.line
    if f.versions.empty:
        raise SchemaError("%s: field %s has no versions" % (where, f.name))
    if not f.nullable.empty:
        if not f.is_array and f.type not in ("string", "bytes", "records") and not f.is_struct:
            raise SchemaError("%s: nullable versions on a %s" % (where, f.type))
    if (f.tag is None) != f.tagged.empty:
        raise SchemaError("%s: tag= and tagged= go together" % where)
    if f.tag is not None:
        if msg.flexible.empty or not msg.flexible.covers(f.tagged):
            raise SchemaError("%s: tagged versions outside flexible versions" % where)
        if not f.versions.covers(f.tagged):
            raise SchemaError("%s: tagged versions outside versions" % where)
    if f.default is not None:
        default_literal(f)  # raises on a bad default


def default_literal(f):
    """C expression of the field's default value (scalars, strings)."""
    d = f.default
    t = f.type
    if f.is_array or f.is_struct or t in ("bytes", "records"):
        if d not in (None, "null", ""):
            raise SchemaError("%s: default %r not allowed on %s" % (f.line, d, t))
        return None
    if t == "bool":
        if d in (None, "false"):
            return "false"
        if d == "true":
            return "true"
        raise SchemaError("%s: bad bool default %r" % (f.line, d))
    if t in INT_RANGES:
        if d is None:
            return "0"
        try:
            val = int(d, 0)
        except ValueError:
            raise SchemaError("%s: bad integer default %r" % (f.line, d))
        lo, hi = INT_RANGES[t]
        if not lo <= val <= hi:
            raise SchemaError("%s: default %s out of range for %s" % (f.line, d, t))
        if t == "int64" and val == lo:
            return "INT64_MIN"
        if t == "int32" and val == lo:
            return "INT32_MIN"
        return str(val) + ("LL" if t == "int64" else "")
    if t == "float64":
        return repr(float(d or 0))
    if t == "uuid":
        return None
    if t == "string":
        if d == "null":
            if f.nullable.empty:
                raise SchemaError("%s: null default on a non-nullable string" % f.line)
            return "null"
        return d or ""
    raise SchemaError("%s: unhandled type %s" % (f.line, t))


def default_is_null(f):
    return f.default == "null"


def has_null_flag(f):
    """Arrays nullable in some version carry a null flag beside their count."""
    return f.is_array and not f.nullable.empty


def array_len_expr(f, val):
    """The length an array field is written with: -1 for null."""
    if has_null_flag(f):
        return "(%s_null ? GR_NULL_LEN : %s_count)" % (val, val)
    return "%s_count" % val


# --- C emission --------------------------------------------------------------


class Out:
    def __init__(self):
        self.lines = []
        self.depth = 0

    def __call__(self, text=""):
        if text.startswith("}"):
            self.depth -= 1
        self.lines.append(("    " * self.depth + text) if text else "")
        if text.endswith("{"):
            self.depth += 1

    def text(self):
        return "\n".join(self.lines) + "\n"


def c_member_type(f):
    if f.is_struct:
        return f.struct.c_type
    return PRIMITIVES[f.type][0]


def emit_struct_decl(o, st):
    o("typedef struct %s {" % st.c_type[:-2])
    for f in st.fields:
        comment = "  /* %s */" % f.about if f.about else ""
        t = c_member_type(f)
        if f.is_array:
            o("%s *%s;%s" % (t, f.c_name, comment))
            o("int32_t %s_count; /* never negative */" % f.c_name)
            if has_null_flag(f):
                o("bool %s_null; /* a null array (count 0), in its nullable versions */" % f.c_name)
        elif f.is_struct and not f.nullable.empty:
            o("%s *%s; /* NULL: null */%s" % (t, f.c_name, comment))
        else:
            o("%s %s;%s" % (t, f.c_name, comment))
    if not st.fields:
        o("char unused_; /* no fields */")
    o("} %s;" % st.c_type)
    o()


class Gen:
    def __init__(self, msg):
        self.msg = msg
        self.valid = msg.valid

    def vcond(self, rng):
        return rng.cond(self.valid)

    def flex_expr(self):
        return self.msg.flexible.cond(self.valid)

    def flex_guard(self):
        """Condition guarding a tag section: `flex`, or the constant it always is."""
        e = self.flex_expr()
        return e if e in ("true", "false") else "flex"

    @staticmethod
    def open_if(o, cond):
        """Opens `if (cond) {` unless cond is constant; returns whether the code
        under it is emitted at all. Pair with close_if(o, cond)."""
        if cond not in ("true", "false"):
            o("if (%s) {" % cond)
        return cond != "false"

    @staticmethod
    def close_if(o, cond):
        if cond not in ("true", "false"):
            o("}")

    # -- per-field helpers --

    def compact(self, f):
        return "false" if f.never_flexible else "flex"

    def is_default_expr(self, f, val):
        """C expression true when field f (lvalue val) holds its default."""
        if f.is_array:
            if not has_null_flag(f):
                return "%s_count == 0" % val
            if default_is_null(f):
                return "%s_null" % val
            return "(!%s_null && %s_count == 0)" % (val, val)
        if f.is_struct:
            if not f.nullable.empty:
                return "%s == NULL" % val
            return "%s_is_default(&%s)" % (f.struct.fn, val)
        t = f.type
        if t in ("bytes", "records"):
            return "%s.len == %s" % (val, "GR_NULL_LEN" if default_is_null(f) else "0")
        if t == "uuid":
            return "gr_uuid_is_zero(%s)" % val
        lit = default_literal(f)
        if t == "string":
            if lit == "null":
                return "%s.len == GR_NULL_LEN" % val
            if lit == "":
                return "%s.len == 0" % val
            return "gr_str_eq_c(%s, %s)" % (val, c_string(lit))
        return "%s == %s" % (val, lit)

    def emit_init_field(self, o, f, val):
        if f.is_array:
            o("%s = NULL;" % val)
            o("%s_count = 0;" % val)
            if has_null_flag(f):
                o("%s_null = %s;" % (val, "true" if default_is_null(f) else "false"))
        elif f.is_struct:
            if not f.nullable.empty:
                if not default_is_null(f):
                    raise SchemaError("%s: a nullable struct needs default=null" % f.line)
                o("%s = NULL;" % val)
            else:
                o("%s_init(&%s);" % (f.struct.fn, val))
        elif f.type in ("bytes", "records"):
            if default_is_null(f):
                o("%s.len = GR_NULL_LEN;" % val)
        elif f.type == "uuid":
            pass
        elif f.type == "string":
            lit = default_literal(f)
            if lit == "null":
                o("%s.len = GR_NULL_LEN;" % val)
            else:
                o("%s = gr_str(%s);" % (val, c_string(lit)))
        else:
            lit = default_literal(f)
            if lit not in ("0", "0LL", "false", "0.0"):
                o("%s = %s;" % (val, lit))

    # -- decode --

    def emit_read_value(self, o, f, val, r, level, is_elem=False):
        """Reads one value (an element if is_elem) of f's type into val."""
        t = f.type
        nullable_cond = self.vcond(f.nullable)
        if f.is_struct and not is_elem and not f.is_array and not f.nullable.empty:
            o("if (gr_read_int8(%s) < 0) {" % r)
            if nullable_cond != "true":
                o("if (!(%s))" % nullable_cond)
                o("    goto bad;")
            o("%s = NULL;" % val)
            o("} else {")
            o("%s = gr_arena_alloc(a, sizeof(*%s));" % (val, val))
            o("if (!%s)" % val)
            o("    return -ENOMEM;")
            o("%s_init(%s);" % (f.struct.fn, val))
            o("if ((rc = %s_decode(%s, v, a, %s)) != 0)" % (f.struct.fn, r, val))
            o("    return rc;")
            o("}")
            return
        if f.is_struct:
            o("if ((rc = %s_decode(%s, v, a, &%s)) != 0)" % (f.struct.fn, r, val))
            o("    return rc;")
            return
        if t in ("string", "bytes"):
            o("%s = gr_read_%s(%s, %s);" % (val, "string" if t == "string" else "bytes", r, self.compact(f)))
            if not is_elem and nullable_cond != "true":
                cond = "%s.len == GR_NULL_LEN" % val
                if nullable_cond != "false":
                    cond += " && !(%s)" % nullable_cond
                o("if (%s)" % cond)
                o("    goto bad;")
            return
        if t == "records":
            o("{")
            o("gr_bytes_t b = gr_read_bytes(%s, %s);" % (r, self.compact(f)))
            o("%s.ptr = b.ptr;" % val)
            o("%s.len = b.len;" % val)
            o("}")
            if nullable_cond != "true":
                cond = "%s.len == GR_NULL_LEN" % val
                if nullable_cond != "false":
                    cond += " && !(%s)" % nullable_cond
                o("if (%s)" % cond)
                o("    goto bad;")
            return
        o("%s = %s(%s);" % (val, PRIMITIVES[t][1], r))

    def emit_read_field(self, o, f, val, r, level):
        if not f.is_array:
            self.emit_read_value(o, f, val, r, level)
            return
        n = "n%d" % level
        i = "i%d" % level
        nullable_cond = self.vcond(f.nullable)
        o("{")
        o("int32_t %s = gr_read_array_len(%s, %s);" % (n, r, self.compact(f)))
        if nullable_cond == "false":
            # Null is never allowed: no null branch at all.
            o("if (%s == GR_NULL_LEN)" % n)
            o("    goto bad;")
        else:
            o("if (%s == GR_NULL_LEN) {" % n)
            if nullable_cond != "true":
                o("if (!(%s))" % nullable_cond)
                o("    goto bad;")
            o("%s = NULL;" % val)
            o("%s_count = 0;" % val)
            o("%s_null = true;" % val)
            o("} else {")
        if has_null_flag(f):
            o("%s_null = false;" % val)
        o("%s_count = %s;" % (val, n))
        o("%s = NULL;" % val)
        o("if (%s > 0) {" % n)
        o("%s = gr_arena_alloc(a, (size_t)%s * sizeof(*%s));" % (val, n, val))
        o("if (!%s)" % val)
        o("    return -ENOMEM;")
        o("}")
        o("for (int32_t %s = 0; %s < %s && !%s->err; %s++) {" % (i, i, n, r, i))
        if f.is_struct:
            o("%s_init(&%s[%s]);" % (f.struct.fn, val, i))
        self.emit_read_value(o, f, "%s[%s]" % (val, i), r, level + 1, is_elem=True)
        o("}")
        if nullable_cond != "false":
            o("}")
        o("}")

    def emit_decode(self, o, st, public):
        msg = self.msg
        static = "" if public else "static "
        o("%sint %s_decode(gr_reader_t *r, int16_t v, gr_arena_t *a, %s *out)" % (static, st.fn, st.c_type))
        start = len(o.lines)
        o("{")
        o("int rc = 0;")
        o("const bool flex = %s;" % self.flex_expr())
        o("(void)v;")
        o("(void)rc;")
        o("(void)flex;")
        o("(void)a;")
        if public:
            o("%s_init(out);" % st.fn)
        for f in st.fields:
            cond = self.regular_cond(f)
            if cond == "false":
                continue
            if cond != "true":
                o("if (%s) {" % cond)
            self.emit_read_field(o, f, "out->%s" % f.c_name, "r", 0)
            if cond != "true":
                o("}")
        tagged = self.tagged_fields(st)
        flex = self.flex_guard()
        if self.open_if(o, flex):
            o("uint32_t tag_count = gr_read_uvarint(r);")
            o("for (uint32_t t = 0; t < tag_count && !r->err; t++) {")
            o("uint32_t tag = gr_read_uvarint(r);")
            o("uint32_t tag_size = gr_read_uvarint(r);")
            o("const uint8_t *tag_data = gr_read_raw(r, tag_size);")
            o("if (!tag_data)")
            o("    break;")
            if tagged:
                o("gr_reader_t sub;")
                o("gr_reader_init(&sub, tag_data, tag_size);")
                o("switch (tag) {")
                for f in tagged:
                    cond = self.vcond(f.tagged)
                    o("case %d:" % f.tag)
                    self.open_if(o, cond)
                    self.emit_read_field(o, f, "out->%s" % f.c_name, "(&sub)", 0)
                    o("if (sub.err || gr_reader_left(&sub) != 0)")
                    o("    goto bad;")
                    self.close_if(o, cond)
                    o("break;")
                o("default: /* unknown tags are skipped */")
                o("break;")
                o("}")
            else:
                o("(void)tag;")
            o("}")
            self.close_if(o, flex)
        o("return r->err;")
        if any("goto bad;" in line for line in o.lines[start:]):
            o("bad:")
            o("gr_reader_fail(r, -EBADMSG);")
            o("return r->err;")
        o("}")
        o()

    def regular_cond(self, f):
        """Condition under which f is a regular (untagged) field on the wire."""
        if f.tag is None:
            return self.vcond(f.versions)
        untagged = [v for v in range(self.valid.lo, self.valid.top() + 1)
                    if f.versions.contains(v) and not f.tagged.contains(v)]
        return self.versions_cond(untagged)

    def versions_cond(self, versions):
        """C condition on `v` true exactly for the listed versions of the message."""
        if not versions:
            return "false"
        runs = []
        for v in versions:
            if runs and runs[-1][1] == v - 1:
                runs[-1][1] = v
            else:
                runs.append([v, v])
        conds = [Range(lo, None if hi == self.valid.top() else hi).cond(self.valid)
                 for lo, hi in runs]
        if "true" in conds:
            return "true"
        return " || ".join("(%s)" % c for c in conds) if len(conds) > 1 else conds[0]

    # -- encode / size --

    def emit_null_check(self, o, f, null_expr):
        nullable_cond = self.vcond(f.nullable)
        if nullable_cond == "true":
            return
        cond = null_expr
        if nullable_cond != "false":
            cond += " && !(%s)" % nullable_cond
        o("if (%s)" % cond)
        o("    gr_writer_fail(w, -EINVAL);")

    def emit_write_value(self, o, f, val, is_elem=False):
        t = f.type
        if f.is_struct:
            if not is_elem and not f.nullable.empty:
                o("if (%s == NULL) {" % val)
                self.emit_null_check(o, f, "true")
                o("gr_write_int8(w, -1);")
                o("} else {")
                o("gr_write_int8(w, 1);")
                o("%s_encode(w, v, %s);" % (f.struct.fn, val))
                o("}")
            else:
                o("%s_encode(w, v, &%s);" % (f.struct.fn, val))
            return
        if t in ("string", "bytes", "records"):
            if not is_elem:
                self.emit_null_check(o, f, "%s.len == GR_NULL_LEN" % val)
            fn = {"string": "gr_write_string", "bytes": "gr_write_bytes", "records": "gr_write_records"}[t]
            arg = "&%s" % val if t == "records" else val
            o("%s(w, %s, %s);" % (fn, arg, self.compact(f)))
            return
        o("%s(w, %s);" % (PRIMITIVES[t][2], val))

    def emit_write_field(self, o, f, val, level):
        if not f.is_array:
            self.emit_write_value(o, f, val)
            return
        i = "i%d" % level
        if has_null_flag(f):
            self.emit_null_check(o, f, "%s_null" % val)
        o("if (%s_count < 0) /* counts are never negative: a caller's bug */" % val)
        o("    gr_writer_fail(w, -EINVAL);")
        o("gr_write_array_len(w, %s, %s);" % (array_len_expr(f, val), self.compact(f)))
        o("for (int32_t %s = 0; %s < %s_count; %s++) {" % (i, i, val, i))
        self.emit_write_value(o, f, "%s[%s]" % (val, i), is_elem=True)
        o("}")

    def size_value(self, o, f, val, acc, is_elem=False):
        t = f.type
        if f.is_struct:
            if not is_elem and not f.nullable.empty:
                o("%s += 1;" % acc)
                o("if (%s != NULL)" % val)
                o("    %s += %s_size(v, %s);" % (acc, f.struct.fn, val))
            else:
                o("%s += %s_size(v, &%s);" % (acc, f.struct.fn, val))
            return
        if t in ("string", "bytes", "records"):
            lenfn = "gr_string_len_size" if t == "string" else "gr_bytes_len_size"
            o("%s += %s(%s.len, %s);" % (acc, lenfn, val, self.compact(f)))
            o("if (%s.len > 0)" % val)
            o("    %s += (size_t)%s.len;" % (acc, val))
            return
        o("%s += %d;" % (acc, PRIMITIVES[t][3]))

    def size_field(self, o, f, val, acc, level):
        if not f.is_array:
            self.size_value(o, f, val, acc)
            return
        i = "i%d" % level
        o("%s += gr_bytes_len_size(%s, %s);" % (acc, array_len_expr(f, val), self.compact(f)))
        fixed = None if f.is_struct else PRIMITIVES[f.type][3]
        if fixed:
            o("if (%s_count > 0)" % val)
            o("    %s += (size_t)%s_count * %d;" % (acc, val, fixed))
            return
        o("for (int32_t %s = 0; %s < %s_count; %s++) {" % (i, i, val, i))
        self.size_value(o, f, "%s[%s]" % (val, i), acc, is_elem=True)
        o("}")

    def absent_check(self, o, f, val, present_cond):
        """Fails the writer when a non-ignorable field absent from v holds a non-default."""
        if f.ignorable or present_cond == "true":
            return
        absent = "!(%s)" % present_cond if present_cond != "false" else "true"
        cond = "%s && !(%s)" % (absent, self.is_default_expr(f, val))
        if absent == "true":
            cond = "!(%s)" % self.is_default_expr(f, val)
        o("if (%s)" % cond)
        o("    gr_writer_fail(w, -EINVAL);")

    def present_cond(self, f):
        """Condition under which f is carried at all (regular or tagged)."""
        return self.vcond(f.versions)

    def emit_encode(self, o, st, public):
        static = "" if public else "static "
        o("%s%s %s_encode(gr_writer_t *w, int16_t v, const %s *in)" % (static, "int" if public else "void", st.fn, st.c_type))
        o("{")
        o("const bool flex = %s;" % self.flex_expr())
        o("(void)flex;")
        o("(void)v;")
        for f in st.fields:
            val = "in->%s" % f.c_name
            self.absent_check(o, f, val, self.present_cond(f))
            cond = self.regular_cond(f)
            if cond == "false":
                continue
            if cond != "true":
                o("if (%s) {" % cond)
            self.emit_write_field(o, f, val, 0)
            if cond != "true":
                o("}")
        tagged = self.tagged_fields(st)
        flex = self.flex_guard()
        if self.open_if(o, flex):
            if tagged:
                o("uint32_t tag_count = 0;")
                for f in tagged:
                    o("if (%s)" % self.tag_written_cond(f))
                    o("    tag_count++;")
                o("gr_write_uvarint(w, tag_count);")
                for f in tagged:
                    val = "in->%s" % f.c_name
                    o("if (%s) {" % self.tag_written_cond(f))
                    o("size_t tag_size = 0;")
                    self.size_field(o, f, val, "tag_size", 0)
                    o("gr_write_uvarint(w, %d);" % f.tag)
                    o("gr_write_uvarint(w, (uint32_t)tag_size);")
                    self.emit_write_field(o, f, val, 0)
                    o("}")
            else:
                o("gr_write_uvarint(w, 0);")
            self.close_if(o, flex)
        if public:
            o("return w->err;")
        o("}")
        o()

    def tagged_fields(self, st):
        """st's tagged fields that some version of the message carries, by tag."""
        fields = [f for f in st.fields if f.tag is not None and self.vcond(f.tagged) != "false"]
        return sorted(fields, key=lambda x: x.tag)

    def tag_written_cond(self, f):
        cond = self.vcond(f.tagged)
        nd = "!(%s)" % self.is_default_expr(f, "in->%s" % f.c_name)
        return nd if cond == "true" else "%s && %s" % (cond, nd)

    def emit_size(self, o, st, public):
        static = "" if public else "static "
        o("%ssize_t %s_size(int16_t v, const %s *in)" % (static, st.fn, st.c_type))
        o("{")
        o("const bool flex = %s;" % self.flex_expr())
        o("size_t n = 0;")
        o("(void)flex;")
        o("(void)v;")
        o("(void)in;")
        for f in st.fields:
            cond = self.regular_cond(f)
            if cond == "false":
                continue
            if cond != "true":
                o("if (%s) {" % cond)
            self.size_field(o, f, "in->%s" % f.c_name, "n", 0)
            if cond != "true":
                o("}")
        tagged = self.tagged_fields(st)
        flex = self.flex_guard()
        if self.open_if(o, flex):
            o("uint32_t tag_count = 0;")
            for f in tagged:
                o("if (%s) {" % self.tag_written_cond(f))
                o("size_t tag_size = 0;")
                self.size_field(o, f, "in->%s" % f.c_name, "tag_size", 0)
                o("n += gr_uvarint_size(%d) + gr_uvarint_size((uint32_t)tag_size) + tag_size;" % f.tag)
                o("tag_count++;")
                o("}")
            o("n += gr_uvarint_size(tag_count);")
            self.close_if(o, flex)
        o("return n;")
        o("}")
        o()

    # -- init, is_default, dump --

    def emit_init(self, o, st, public):
        static = "" if public else "static "
        o("%svoid %s_init(%s *out)" % (static, st.fn, st.c_type))
        o("{")
        o("memset(out, 0, sizeof(*out));")
        for f in st.fields:
            self.emit_init_field(o, f, "out->%s" % f.c_name)
        o("}")
        o()

    def emit_is_default(self, o, st):
        o("static inline bool %s_is_default(const %s *in)" % (st.fn, st.c_type))
        o("{")
        o("(void)in;")
        if not st.fields:
            o("return true;")
        else:
            conds = ["(%s)" % self.is_default_expr(f, "in->%s" % f.c_name) for f in st.fields]
            o("return " + " &&\n           ".join(conds) + ";")
        o("}")
        o()

    def dump_value(self, o, f, val, is_elem=False):
        t = f.type
        if f.is_struct:
            if not is_elem and not f.nullable.empty:
                o("if (%s == NULL)" % val)
                o("    gr_dump_null(t);")
                o("else")
                o("    %s_dump(t, v, %s);" % (f.struct.fn, val))
            else:
                o("%s_dump(t, v, &%s);" % (f.struct.fn, val))
        elif t == "string":
            o("gr_dump_str(t, %s);" % val)
        elif t in ("bytes", "records"):
            o("gr_dump_hex(t, %s.ptr, %s.len);" % (val, val))
        elif t == "uuid":
            o("gr_dump_uuid(t, %s);" % val)
        elif t == "bool":
            o("gr_dump_bool(t, %s);" % val)
        elif t == "float64":
            o("gr_dump_double(t, %s);" % val)
        else:
            o("gr_dump_int(t, %s);" % val)

    def emit_dump(self, o, st, public):
        static = "" if public else "static "
        o("%svoid %s_dump(gr_writer_t *t, int16_t v, const %s *in)" % (static, st.fn, st.c_type))
        o("{")
        o("int first = 1;")
        o("(void)v;")
        o("(void)in;")
        o("gr_dump_char(t, '{');")
        for f in st.fields:
            cond = self.present_cond(f)
            if cond == "false":
                continue
            if cond != "true":
                o("if (%s) {" % cond)
            o('gr_dump_key(t, &first, "%s");' % f.name)
            val = "in->%s" % f.c_name
            if f.is_array:
                if has_null_flag(f):
                    o("if (%s_null) {" % val)
                    o("gr_dump_null(t);")
                    o("} else {")
                o("gr_dump_char(t, '[');")
                o("for (int32_t i = 0; i < %s_count; i++) {" % val)
                o("if (i)")
                o("    gr_dump_char(t, ',');")
                self.dump_value(o, f, "%s[i]" % val, is_elem=True)
                o("}")
                o("gr_dump_char(t, ']');")
                if has_null_flag(f):
                    o("}")
            else:
                self.dump_value(o, f, val)
            if cond != "true":
                o("}")
        o("(void)first;")
        o("gr_dump_char(t, '}');")
        o("}")
        o()


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def const_prefix(msg):
    return "GR_" + snake(msg.name).upper()


def is_error_code(f):
    """A Kafka error code field: Kafka's responses count every one (errorCounts)."""
    return f.type == "int16" and not f.is_array and f.name.endswith("ErrorCode")


def carries_errors(st, seen=None):
    """Does st, or a struct it holds, have an error code field?"""
    seen = seen if seen is not None else set()
    if id(st) in seen:
        return False
    seen.add(id(st))
    return any(is_error_code(f) or (f.is_struct and carries_errors(f.struct, seen))
               for f in st.fields)


def emit_errors(gen, o, st, public):
    """X_errors(v, in, fn, ctx): fn(ctx, code) for each error code carried at version v."""
    static = "" if public else "static "
    o("%svoid %s_errors(int16_t v, const %s *in, gr_error_code_fn *fn, void *ctx)" % (static, st.fn, st.c_type))
    o("{")
    o("(void)v;")
    for f in st.fields:
        if not (is_error_code(f) or (f.is_struct and carries_errors(f.struct))):
            continue
        cond = gen.present_cond(f)
        if cond == "false":
            continue
        if cond != "true":
            o("if (%s) {" % cond)
        val = "in->%s" % f.c_name
        if is_error_code(f):
            o("fn(ctx, %s);" % val)
        elif f.is_array:
            o("for (int32_t i = 0; %s && i < %s_count; i++)" % (val, val))
            o("    %s_errors(v, &%s[i], fn, ctx);" % (f.struct.fn, val))
        elif not f.nullable.empty:
            o("if (%s)" % val)
            o("    %s_errors(v, %s, fn, ctx);" % (f.struct.fn, val))
        else:
            o("%s_errors(v, &%s, fn, ctx);" % (f.struct.fn, val))
        if cond != "true":
            o("}")
    o("}")
    o()


def generate_file(stem, source_name, api, messages, enums):
    h = Out()
    c = Out()
    guard = "GR_GEN_%s_H" % stem.upper()
    banner = "/* Generated from proto/%s by tools/gen_codec.py; do not edit. */" % source_name
    h(banner)
    h("#ifndef %s" % guard)
    h("#define %s" % guard)
    h()
    h('#include "protocol/codec.h"')
    h()
    if api:
        h("#define %s %d" % (api.const(), api.key))
        h()
    emit_enums(h, enums)
    c(banner)
    c('#include "gen/%s.h"' % stem)
    c()
    c("#include <errno.h>")
    c("#include <string.h>")
    c()
    for msg in messages:
        structs = resolve(msg)
        gen = Gen(msg)
        cp = const_prefix(msg)
        h("/* %s: versions %s, flexible %s */" % (msg.name, msg.valid, msg.flexible))
        h("#define %s_MIN_VERSION %d" % (cp, msg.valid.lo))
        h("#define %s_MAX_VERSION %d" % (cp, msg.valid.hi))
        h()
        top = Struct(msg.prefix + "_t", msg.fields, msg.name)
        reach(msg, top, structs)
        for st in structs:
            emit_struct_decl(h, st)
        emit_struct_decl(h, top)
        h("/* Set every field to its schema default (nested structs too). */")
        for st in structs:
            h("void %s_init(%s *out);" % (st.fn, st.c_type))
        h("void %s_init(%s *out);" % (top.fn, top.c_type))
        h("/* Returns 0 or a negative errno; strings point into r's buffer, arrays into a. */")
        h("int %s_decode(gr_reader_t *r, int16_t v, gr_arena_t *a, %s *out);" % (top.fn, top.c_type))
        h("/* Returns 0, or -EINVAL if in holds what version v cannot carry. */")
        h("int %s_encode(gr_writer_t *w, int16_t v, const %s *in);" % (top.fn, top.c_type))
        h("size_t %s_size(int16_t v, const %s *in);" % (top.fn, top.c_type))
        h("void %s_dump(gr_writer_t *t, int16_t v, const %s *in);" % (top.fn, top.c_type))
        if msg.kind == "response" and carries_errors(top):
            h("/* fn(ctx, code) for every error code in, at version v. */")
            h("void %s_errors(int16_t v, const %s *in, gr_error_code_fn *fn, void *ctx);" % (top.fn, top.c_type))
        h("extern const gr_codec_desc_t %s_desc;" % top.fn)
        h()
        # forward declarations so structs can be emitted leaves first
        for st in structs:
            c(IS_DEFAULT_DECL % (st.fn, st.c_type))
        c(IS_DEFAULT_DECL % (top.fn, top.c_type))
        c()
        for st in structs:
            gen.valid = st.within
            gen.emit_init(c, st, True)
            gen.emit_is_default(c, st)
            gen.emit_decode(c, st, False)
            gen.emit_encode(c, st, False)
            gen.emit_size(c, st, False)
            gen.emit_dump(c, st, False)
            if msg.kind == "response" and carries_errors(st):
                emit_errors(gen, c, st, False)
        gen.valid = msg.valid
        gen.emit_init(c, top, True)
        gen.emit_is_default(c, top)
        gen.emit_decode(c, top, True)
        gen.emit_encode(c, top, True)
        gen.emit_size(c, top, True)
        gen.emit_dump(c, top, True)
        if msg.kind == "response" and carries_errors(top):
            emit_errors(gen, c, top, True)
        emit_desc(c, msg, top)
    h("#endif")
    return h.text(), c.text()


def emit_desc(c, msg, top):
    fn = top.fn
    c("static void %s_init_any(void *m)" % fn)
    c("{")
    c("%s_init(m);" % fn)
    c("}")
    c("static int %s_decode_any(gr_reader_t *r, int16_t v, gr_arena_t *a, void *m)" % fn)
    c("{")
    c("return %s_decode(r, v, a, m);" % fn)
    c("}")
    c("static int %s_encode_any(gr_writer_t *w, int16_t v, const void *m)" % fn)
    c("{")
    c("return %s_encode(w, v, m);" % fn)
    c("}")
    c("static size_t %s_size_any(int16_t v, const void *m)" % fn)
    c("{")
    c("return %s_size(v, m);" % fn)
    c("}")
    c("static void %s_dump_any(gr_writer_t *t, int16_t v, const void *m)" % fn)
    c("{")
    c("%s_dump(t, v, m);" % fn)
    c("}")
    errors = msg.kind == "response" and carries_errors(top)
    if errors:
        c("static void %s_errors_any(int16_t v, const void *m, gr_error_code_fn *f, void *ctx)" % fn)
        c("{")
        c("%s_errors(v, m, f, ctx);" % fn)
        c("}")
    kind = {"request": "GR_MESSAGE_REQUEST", "response": "GR_MESSAGE_RESPONSE",
            "header": "GR_MESSAGE_HEADER", "data": "GR_MESSAGE_DATA"}[msg.kind]
    flex = "GR_VERSION_NONE" if msg.flexible.empty else str(msg.flexible.lo)
    c("const gr_codec_desc_t %s_desc = {" % fn)
    c('"%s", %s, %d, %d, %d, %s, sizeof(%s),' % (msg.name, kind, msg.api_key, msg.valid.lo, msg.valid.hi, flex, top.c_type))
    c("%s_init_any, %s_decode_any, %s_encode_any, %s_size_any, %s_dump_any," % (fn, fn, fn, fn, fn))
    c("%s," % ("%s_errors_any" % fn if errors else "NULL"))
    c("};")
    c()


def generate_registry(files):
    h = Out()
    c = Out()
    banner = "/* Generated from proto/ by tools/gen_codec.py; do not edit. */"
    h(banner)
    h("#ifndef GR_GEN_CODEC_REGISTRY_H")
    h("#define GR_GEN_CODEC_REGISTRY_H")
    h()
    h('#include "protocol/codec.h"')
    h()
    h("/* Every generated message, in schema order. */")
    h("extern const gr_codec_desc_t *const gr_codec_all[];")
    h("extern const size_t gr_codec_count;")
    h("/* Every API, ordered by key. */")
    h("extern const gr_api_desc_t gr_api_all[];")
    h("extern const size_t gr_api_count;")
    h()
    h("/* Returns the message called name (e.g. \"FetchRequest\"), or NULL. */")
    h("const gr_codec_desc_t *gr_codec_find(const char *name);")
    h("/* Returns the API with this key, or NULL. */")
    h("const gr_api_desc_t *gr_api_find(int16_t key);")
    h()
    h("#endif")
    c(banner)
    c('#include "gen/codec_registry.h"')
    c()
    c("#include <string.h>")
    c()
    apis = []
    all_msgs = []
    for stem, api, messages in files:
        c('#include "gen/%s.h"' % stem)
        for m in messages:
            all_msgs.append(m)
        if api:
            req = [m for m in messages if m.kind == "request"]
            resp = [m for m in messages if m.kind == "response"]
            if len(req) != 1 or len(resp) != 1:
                raise SchemaError("%s: an API file needs one request and one response" % stem)
            if (req[0].valid.lo, req[0].valid.hi) != (resp[0].valid.lo, resp[0].valid.hi):
                raise SchemaError("%s: request and response versions differ (%s, %s)" % (resp[0].line, req[0].valid, resp[0].valid))
            apis.append((api, req[0], resp[0]))
    c()
    c("const gr_codec_desc_t *const gr_codec_all[] = {")
    for m in all_msgs:
        c("&%s_desc," % m.prefix)
    c("};")
    c("const size_t gr_codec_count = sizeof(gr_codec_all) / sizeof(gr_codec_all[0]);")
    c()
    apis.sort(key=lambda x: x[0].key)
    for (a, _, _), (b, _, _) in zip(apis, apis[1:]):
        if a.key == b.key:
            raise SchemaError("API key %d is both %s and %s" % (a.key, a.name, b.name))
    c("const gr_api_desc_t gr_api_all[] = {")
    for api, req, resp in apis:
        flex = "GR_VERSION_NONE" if req.flexible.empty else str(req.flexible.lo)
        c('{%d, "%s", %d, %d, %s, &%s_desc, &%s_desc},' % (api.key, api.name, req.valid.lo, req.valid.hi, flex, req.prefix, resp.prefix))
    c("};")
    c("const size_t gr_api_count = sizeof(gr_api_all) / sizeof(gr_api_all[0]);")
    c()
    c("const gr_codec_desc_t *gr_codec_find(const char *name)")
    c("{")
    c("for (size_t i = 0; i < gr_codec_count; i++)")
    c("    if (strcmp(gr_codec_all[i]->name, name) == 0)")
    c("        return gr_codec_all[i];")
    c("return NULL;")
    c("}")
    c()
    c("const gr_api_desc_t *gr_api_find(int16_t key)")
    c("{")
    c("for (size_t i = 0; i < gr_api_count; i++)")
    c("    if (gr_api_all[i].key == key)")
    c("        return &gr_api_all[i];")
    c("return NULL;")
    c("}")
    return h.text(), c.text(), apis


def generate_handlers(apis):
    """The broker's dispatch table: the APIs with a `serve` line, by key."""
    served = [(api, req) for api, req, _ in apis if api.serve]
    if not served:
        raise SchemaError("no API has a 'serve' line: the broker would serve nothing")
    for api, req in served:
        if not req.valid.covers(api.serve):
            raise SchemaError("%s: serves %s v%s, outside %s's versions %s"
                              % (api.serve_line, api.name, api.serve, req.name, req.valid))
    c = Out()
    c("/* Generated from the 'serve' lines of proto/ by tools/gen_codec.py; do not edit. */")
    c('#include "handlers/handlers.h"')
    c('#include "handlers/request.h"')
    c()
    for api, req in served:
        c('#include "gen/%s.h"' % api.stem)
    c()
    c("const gr_api_handler_t gr_api_handlers[] = {")
    for api, _ in served:
        c("{%s, %d, %d, %s}," % (api.const(), api.serve.lo, api.serve.hi, api.handler))
    c("};")
    c()
    c("const size_t gr_api_handler_count = sizeof(gr_api_handlers) / sizeof(gr_api_handlers[0]);")
    return c.text()


def clang_format(text, path):
    """Formats generated C with the repository's .clang-format when available."""
    exe = shutil.which("clang-format")
    if not exe:
        return text
    style = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".clang-format")
    try:
        res = subprocess.run([exe, "--style=file:" + style, "--assume-filename=" + path],
                             input=text, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return text
    return res.stdout


def write_if_changed(path, text):
    text = clang_format(text, path)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("schemas", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    files = []
    names = {}
    prefixes = {}  # C prefix (gr_<snake name>) -> where it was declared
    try:
        for path in sorted(args.schemas):
            stem = os.path.splitext(os.path.basename(path))[0]
            api, messages, enums = parse_file(path)
            if not messages and (api or not enums):
                raise SchemaError("%s: no messages" % path)
            for m in messages:
                if m.name in names:
                    raise SchemaError("%s: message %s also in %s" % (m.line, m.name, names[m.name]))
                names[m.name] = path
            for m in messages:
                prefixes.setdefault(m.prefix, m.line)
            for en in enums:
                # its C type would collide with another enum's or a message's
                if en.prefix in prefixes:
                    raise SchemaError("%s: enum %s: %s_t also declared at %s" % (en.line, en.name, en.prefix, prefixes[en.prefix]))
                prefixes[en.prefix] = en.line
            htext, ctext = generate_file(stem, os.path.basename(path), api, messages, enums)
            write_if_changed(os.path.join(args.out, stem + ".h"), htext)
            write_if_changed(os.path.join(args.out, stem + ".c"), ctext)
            files.append((stem, api, messages))
        htext, ctext, apis = generate_registry(files)
        handlers = generate_handlers(apis)
    except SchemaError as e:
        sys.stderr.write("gen_codec: %s\n" % e)
        return 1
    write_if_changed(os.path.join(args.out, "codec_registry.h"), htext)
    write_if_changed(os.path.join(args.out, "codec_registry.c"), ctext)
    write_if_changed(os.path.join(args.out, "api_handlers.c"), handlers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
