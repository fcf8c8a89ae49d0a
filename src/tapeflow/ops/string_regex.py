"""``tf.strings.regex_full_match`` and ``tf.strings.regex_replace``: RE2's syntax and semantics on Python's ``re``.

TensorFlow matches with RE2. Its syntax is, for the most part, a subset of Python's, and both pick the leftmost
match preferring earlier alternatives, so a pattern is checked and translated here, then compiled by ``re``:

* what RE2 refuses is refused with RE2's error text (``missing ): (``, ``invalid perl operator: (?=``, backreferences
  as ``invalid escape sequence: \\1``, repetition sizes over 1000 ...);
* RE2's ``$`` (without the ``m`` flag) and ``\\z`` are the end of the text, Python's ``\\Z``; POSIX classes
  (``[[:alpha:]]``) become ranges; ``{,n}`` is literal text in RE2;
* strings are matched as text (UTF-8, as RE2 reads them), so ``.`` is one character.

``regex_replace`` replaces as RE2's ``GlobalReplace`` (an empty match right after a match is skipped, unlike
Python's ``re.sub``) or ``Replace``, with RE2's rewrite strings (``\\0`` .. ``\\9``, ``\\\\``): a rewrite naming a
group the pattern lacks replaces nothing.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import numpy as np

from .._core import errors
from .._core.exports import export
from .._core.registry import defop
from ._strings import call, fast, new_like, run, string_tensor, strings_of

__all__ = ["regex_full_match", "regex_replace"]

_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
          "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
          "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_",
          "xdigit": "0-9A-Fa-f"}
_ESCAPES = set("abfnrtvdDsSwWbBAzxpPQEC")  # letters RE2 gives a meaning after a backslash
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")


# Bytes that are not UTF-8 reach the matcher as lone surrogates (``surrogateescape``); RE2's ``.`` matches none.
_DOT, _ANY = "[^\\n\\udc80-\\udcff]", "[^\\udc80-\\udcff]"


@functools.lru_cache(maxsize=None)
def _category_ranges(name):
    """A character-class body of the code points in Unicode general category ``name`` (``L``, ``Lu`` ...)."""
    body, start, prev = [], None, None
    for cp in range(0x110000):
        inside = unicodedata.category(chr(cp)).startswith(name) and not 0xD800 <= cp <= 0xDFFF
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            body.append(f"\\U{start:08x}-\\U{prev:08x}")
            start = None
        prev = cp
    if start is not None:
        body.append(f"\\U{start:08x}-\\U{prev:08x}")
    return "".join(body)


_CATEGORIES = {"L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd",
               "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf",
               "Co", "Cs"}


def _category(pattern, i):
    """The class body for ``\\pX`` or ``\\p{Name}`` at ``pattern[i]`` (a Unicode general category), and the index
    after it."""
    if pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 2)
        if end < 0:
            raise _Refused(f"missing closing }}: {pattern[i:]}")
        name, after = pattern[i + 3:end], end + 1
    else:
        name, after = pattern[i + 2:i + 3], i + 3
    if name == "Any":
        return "\\x00-\\U0010ffff", after
    if name not in _CATEGORIES:
        raise _Refused(f"invalid character class range: {pattern[i:after]}")
    return _category_ranges(name), after


class _Refused(Exception):
    """A pattern RE2 does not compile, with RE2's message."""


def _class(pattern, i):
    """Translate the character class starting at ``pattern[i] == "["``; return (text, index after it)."""
    out = ["["]
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        out.append("^")
        j += 1
    first = True
    while j < len(pattern):
        c = pattern[j]
        if c == "]" and not first:
            return "".join(out) + "]", j + 1
        first = False
        if c == "[" and pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            name = pattern[j + 2:end] if end > 0 else None
            if name in _POSIX or (name and name[0] == "^" and name[1:] in _POSIX):
                if name[0] == "^":  # a negated POSIX class inside a class: not expressible as ranges here
                    raise _Refused(f"invalid character class range: [:{name}:]")
                out.append(_POSIX[name])
                j = end + 2
                continue
        if c == "\\":
            if j + 1 >= len(pattern):
                raise _Refused("trailing \\")
            if pattern[j + 1] == "p":
                body, j = _category(pattern, j)
                out.append(body)
                continue
            out.append(pattern[j:j + 2])
            j += 2
            continue
        if c == "-" and out[-1] not in ("[", "^") and j + 1 < len(pattern) and pattern[j + 1] != "]":
            lo, hi = pattern[j - 1], pattern[j + 1]
            if pattern[j - 2:j] != "\\" + lo and hi != "\\" and ord(lo) > ord(hi):
                raise _Refused(f"invalid character class range: {lo}-{hi}")
        out.append("\\[" if c == "[" else c)
        j += 1
    raise _Refused(f"missing ]: {pattern[i:]}")


def _translate(pattern):
    """``pattern`` (RE2 syntax) as a Python pattern with RE2's meaning; raises :class:`_Refused`."""
    out, i, depth, n = [], 0, 0, len(pattern)
    multiline = dotall = False
    atom = False  # whether a repetition operator has something to repeat
    last_repeat = ""  # the repetition operator just read, for RE2's "bad repetition operator"
    while i < n:
        c = pattern[i]
        repeat = ""
        if c == "\\":
            if i + 1 == n:
                raise _Refused("trailing \\")
            d = pattern[i + 1]
            if (d.isdigit() and d != "0") or (d.isalpha() and d not in _ESCAPES):
                raise _Refused(f"invalid escape sequence: \\{d}")
            if d in "pP":
                body, i = _category(pattern, i)
                out.append(("[" if d == "p" else "[^") + body + "]")
            else:
                out.append({"z": "\\Z", "C": "(?s:.)"}.get(d, pattern[i:i + 2]))
                i += 2
            atom = True
        elif c == "[":
            text, i = _class(pattern, i)
            out.append(text)
            atom = True
        elif c == "(":
            head = "("
            if pattern.startswith("(?", i):
                named = re.match(r"\(\?P<\w+>", pattern[i:])
                flags = re.match(r"\(\?([imsU-]*)([:)])", pattern[i:])
                if named is not None:
                    head = named.group(0)
                elif flags is None:
                    raise _Refused(f"invalid perl operator: {pattern[i:i + 3]}")
                else:
                    multiline = multiline or "m" in flags.group(1).split("-")[0]
                    dotall = dotall or "s" in flags.group(1).split("-")[0]
                    head = flags.group(0)
                    if flags.group(2) == ")":  # flags alone: nothing opens
                        out.append(head)
                        i += len(head)
                        atom, last_repeat = False, ""
                        continue
            depth += 1
            out.append(head)
            i += len(head)
            atom = False
        elif c == ")":
            if depth == 0:
                raise _Refused(f"unexpected ): {pattern}")
            depth -= 1
            out.append(c)
            i += 1
            atom = True
        elif c in "*+?" or (c == "{" and _REPEAT.match(pattern, i)):
            found = _REPEAT.match(pattern, i) if c == "{" else None
            op = found.group(0) if found else c
            lazy = op == "?" and (last_repeat in ("*", "+", "?") or
                                  (last_repeat.startswith("{") and not last_repeat.endswith("?")))
            if last_repeat and not lazy:
                raise _Refused(f"bad repetition operator: {last_repeat}{op}")
            if not atom and not last_repeat:
                raise _Refused(f"no argument for repetition operator: {op}")
            if found:
                lo, hi = int(found.group(1)), found.group(3)
                hi = lo if found.group(2) is None else (None if hi == "" else int(hi))
                if lo > 1000 or (hi is not None and (hi > 1000 or hi < lo)):
                    raise _Refused(f"invalid repetition size: {op}")
            out.append(op)
            i += len(op)
            repeat = last_repeat + op
        else:
            out.append("\\Z" if c == "$" and not multiline else "\\{" if c == "{" else
                       (_ANY if dotall else _DOT) if c == "." else c)
            i += 1
            atom = c not in "|^$"
        last_repeat = repeat
    if depth:
        raise _Refused(f"missing ): {pattern}")
    return "".join(out)


@functools.lru_cache(maxsize=256)
def _compiled(pattern, op_name):
    text = pattern.decode("utf-8", "surrogateescape") if isinstance(pattern, bytes) else pattern
    try:
        return re.compile(_translate(text))
    except (_Refused, re.error) as exc:
        raise errors.op_error(op_name, f"Invalid pattern: {text}, error: {exc}") from None


def _text(s):
    return s.decode("utf-8", "surrogateescape")


def _full_match(x, pattern, op_name):
    regex = _compiled(pattern, op_name)
    return np.array([regex.fullmatch(_text(s)) is not None for s in strings_of(x)], bool).reshape(np.shape(x))


@defop("StaticRegexFullMatch", same_dtype=False)
def STATIC_REGEX_FULL_MATCH(x, pattern):
    """Whether each whole string matches ``pattern`` (an attribute)."""
    return _full_match(x, pattern, "StaticRegexFullMatch")


def _scalar(value, what, op_name):
    if np.ndim(value):
        raise errors.op_error(op_name, f"{what} must be scalar, but received {errors.shape_str(np.shape(value))}")
    return np.asarray(value, dtype=object)[()]


@defop("RegexFullMatch", same_dtype=False)
def REGEX_FULL_MATCH(x, pattern):
    """Whether each whole string matches ``pattern`` (a scalar string tensor)."""
    return _full_match(x, _scalar(pattern, "Pattern", "RegexFullMatch"), "RegexFullMatch")


@export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):
    """Whether each string of ``input`` matches the RE2 regular expression ``pattern`` as a whole
    (``tf.strings.regex_full_match``)."""
    if isinstance(pattern, (str, bytes)):
        quick = fast(input)
        x = call(quick, name, string_tensor, input, "StaticRegexFullMatch")
        return run(STATIC_REGEX_FULL_MATCH, (x,), {"pattern": pattern}, quick, name)
    quick = fast(input, pattern)
    x = call(quick, name, string_tensor, input, "RegexFullMatch")
    p = call(quick, name, string_tensor, pattern, "RegexFullMatch", 1)
    return run(REGEX_FULL_MATCH, (x, p), {}, quick, name)


def _max_group(rewrite):
    """The highest ``\\N`` a rewrite names (``-1`` for none), as RE2 reads it."""
    top, i = -1, 0
    while i < len(rewrite):
        if rewrite[i] == "\\" and i + 1 < len(rewrite):
            if rewrite[i + 1].isdigit():
                top = max(top, int(rewrite[i + 1]))
            i += 1
        i += 1
    return top


def _rewrite(rewrite, match):
    """RE2's rewrite of one match; ``(text, complete)``: text up to a bad escape, where RE2 stops."""
    out, i = [], 0
    while i < len(rewrite):
        c = rewrite[i]
        if c != "\\":
            out.append(c)
        elif i + 1 < len(rewrite) and rewrite[i + 1].isdigit():
            out.append(match.group(int(rewrite[i + 1])) or "")
            i += 1
        elif i + 1 < len(rewrite) and rewrite[i + 1] == "\\":
            out.append("\\")
            i += 1
        else:
            return "".join(out), False
        i += 1
    return "".join(out), True


def _replace_one(text, regex, rewrite, replace_global):
    if _max_group(rewrite) > regex.groups:
        return text
    if not replace_global:
        m = regex.search(text)
        if m is None:
            return text
        piece, complete = _rewrite(rewrite, m)
        return text[:m.start()] + piece + text[m.end():] if complete else text
    out, pos, last_end, count = [], 0, -1, 0
    while pos <= len(text):
        m = regex.search(text, pos)
        if m is None:
            break
        out.append(text[pos:m.start()])
        if m.start() == m.end() == last_end:  # no empty match right after the previous match: step a character
            out.append(text[m.start():m.start() + 1])
            pos = m.start() + 1
            continue
        out.append(_rewrite(rewrite, m)[0])
        pos = last_end = m.end()
        count += 1
    if not count:
        return text
    out.append(text[pos:])
    return "".join(out)


def _replace(x, pattern, rewrite, replace_global, op_name):
    regex = _compiled(pattern, op_name)
    rewrite = _text(rewrite) if isinstance(rewrite, bytes) else rewrite
    return new_like(x, [_replace_one(_text(s), regex, rewrite, replace_global).encode("utf-8", "surrogateescape")
                        for s in strings_of(x)])


@defop("StaticRegexReplace", same_dtype=False)
def STATIC_REGEX_REPLACE(x, pattern, rewrite, replace_global):
    """Each string with the matches of ``pattern`` (the first, or all) replaced by ``rewrite`` (attributes)."""
    return _replace(x, pattern, rewrite, replace_global, "StaticRegexReplace")


@defop("RegexReplace", same_dtype=False)
def REGEX_REPLACE(x, pattern, rewrite, replace_global):
    """Each string with the matches of ``pattern`` replaced by ``rewrite`` (scalar string tensors)."""
    return _replace(x, _scalar(pattern, "Pattern", "RegexReplace"), _scalar(rewrite, "Rewrite", "RegexReplace"),
                    replace_global, "RegexReplace")


@export("strings.regex_replace")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Each string of ``input`` with the matches of the RE2 regular expression ``pattern`` replaced by ``rewrite``
    (where ``\\0`` is the match and ``\\1`` .. ``\\9`` its groups): every match, or the first with
    ``replace_global=False`` (``tf.strings.regex_replace``)."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        quick = fast(input)
        x = call(quick, name, string_tensor, input, "StaticRegexReplace")
        return run(STATIC_REGEX_REPLACE, (x,), {"pattern": pattern, "rewrite": rewrite,
                                                "replace_global": bool(replace_global)}, quick, name)
    quick = fast(input, pattern, rewrite)
    x = call(quick, name, string_tensor, input, "RegexReplace")
    p = call(quick, name, string_tensor, pattern, "RegexReplace", 1)
    r = call(quick, name, string_tensor, rewrite, "RegexReplace", 2)
    return run(REGEX_REPLACE, (x, p, r), {"replace_global": bool(replace_global)}, quick, name)

