"""The ``checkpoint`` state file of a checkpoint directory: TensorFlow's ``CheckpointState`` in protobuf text format.

TF writes and reads it as the text form of a four-field message::

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1700000000.25
    all_model_checkpoint_timestamps: 1700000100.5
    last_preserved_timestamp: 1699999999.0

tapeflow reads it with the text format's grammar (comments, ``,``/``;`` separators, the ``[a, b]`` list form,
adjacent string literals, C escapes, ``inf``/``nan``), so a file TF wrote reads the same, and a damaged one fails
where TF's parser fails, with the same ``line:column`` and words: TF logs that error and ignores the file, and so
does :func:`read_state`. :func:`write_state` writes it atomically, as protobuf prints it.
"""

from __future__ import annotations

import math
import os
import re
import warnings

from . import checkpoint_io

__all__ = ["ParseError", "parse", "format_state", "read_state", "write_state", "STATE_FILE"]

STATE_FILE = "checkpoint"

_MESSAGE = "tensorflow.CheckpointState"
_FIELDS = {"model_checkpoint_path": "string", "all_model_checkpoint_paths": "strings",
           "all_model_checkpoint_timestamps": "doubles", "last_preserved_timestamp": "double"}


class ParseError(Exception):
    """A state file that is not valid text for ``CheckpointState`` (worded as protobuf's ``ParseError``)."""


# The text format's tokens: an identifier, a number-like word, a quoted string (an unterminated one runs to the end
# of the line); anything else is a token of one character. Whitespace and ``#`` comments separate tokens.
_TOKEN = re.compile(r"[a-zA-Z_][0-9a-zA-Z_+-]*"
                    r"|(?:[0-9+-]|\.[0-9])[0-9a-zA-Z_.+-]*"
                    r'|"[^"\n\\]*(?:(?:\\.)+[^"\n\\]*)*(?:"|\\?$)'
                    r"|'[^'\n\\]*(?:(?:\\.)+[^'\n\\]*)*(?:'|\\?$)")
_SPACE = re.compile(r"(?:\s|#.*$)+", re.MULTILINE)
_NAME = re.compile(r"\w+")
_IDENTIFIER = re.compile(r"[^\d\W]\w*")


class _Tokens:
    """A cursor over the tokens of the text, line by line, remembering where each token starts (for errors)."""

    def __init__(self, text):
        self._lines = iter(text.split("\n"))
        self._line, self._col, self._text = -1, 0, ""
        self._more = True
        self._previous = (0, 0)
        self.token = ""
        self._skip()
        self.next()

    def _skip(self):
        while True:
            while len(self._text) <= self._col:  # past the end of this line: take the next one
                line = next(self._lines, None)
                if line is None:
                    self._text, self._more = "", False
                    break
                self._line, self._col, self._text = self._line + 1, 0, line
            match = _SPACE.match(self._text, self._col)
            if not match:
                return
            self._col += len(match.group(0))

    def next(self):
        self._previous = (self._line, self._col)
        self._col += len(self.token)
        self._skip()
        if not self._more:
            self.token = ""
            return
        match = _TOKEN.match(self._text, self._col)
        self.token = match.group(0) if match else self._text[self._col]

    def try_consume(self, token):
        if self.token == token:
            self.next()
            return True
        return False

    def consume(self, token):
        if not self.try_consume(token):
            raise self.error(f'Expected "{token}".')

    def error(self, message):
        """An error at the current token, quoting its line."""
        return ParseError(f"{self._line + 1}:{self._col + 1} : '{self._text}': {message}")

    def error_before(self, message):
        """An error at the token just consumed."""
        return ParseError(f"{self._previous[0] + 1}:{self._previous[1] + 1} : {message}")


_SHORT_HEX = re.compile(r"(\\+)x([0-9a-fA-F])(?![0-9a-fA-F])")


def _unescape(body):
    """The bytes a C-escaped string literal stands for, decoded with Python's escape codecs (so a malformed escape
    fails with the codec's words, as in protobuf's parser)."""
    if "\\" not in body:
        return body.encode("utf-8")
    # Python's codecs want two hex digits after \x; C takes one. (An even run of backslashes escapes itself.)
    body = _SHORT_HEX.sub(lambda m: m.group(1) + "x0" + m.group(2) if len(m.group(1)) % 2 else m.group(0), body)
    body = body.encode("raw_unicode_escape").decode("raw_unicode_escape")  # \uXXXX escapes
    with warnings.catch_warnings():  # an unknown escape ("\\d") stands for itself; Python warns about it
        warnings.simplefilter("ignore", DeprecationWarning)
        return body.encode("utf-8").decode("unicode_escape").encode("latin-1")


def _string(tokens):
    parts = []
    while True:
        text = tokens.token
        if not text or text[0] not in "'\"":
            if parts:
                break
            raise tokens.error(f"Expected string but found: {text!r}")
        if len(text) < 2 or text[-1] != text[0]:
            raise tokens.error(f"String missing ending quote: {text!r}")
        try:
            parts.append(_unescape(text[1:-1]))
        except ValueError as exc:
            raise tokens.error(str(exc)) from None
        tokens.next()
    try:
        return b"".join(parts).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise tokens.error(f"Couldn't parse string: {exc}") from None


def _parse_float(text):
    if re.match(r"-?0[0-9]+", text):
        raise ValueError(f"Invalid octal float: {text}")
    try:
        return float(text)
    except ValueError:
        pass
    if re.match(r"-?inf(?:inity)?f?$", text, re.IGNORECASE):
        return -math.inf if text[0] == "-" else math.inf
    if re.match(r"nanf?$", text, re.IGNORECASE):
        return math.nan
    try:
        return float(text.rstrip("fF"))  # the "1.5f" spelling
    except ValueError:
        raise ValueError(f"Couldn't parse float: {text}") from None


def _double(tokens):
    try:
        value = _parse_float(tokens.token)
    except ValueError as exc:
        raise tokens.error(str(exc)) from None
    tokens.next()
    return value


def _field(tokens, state):
    if tokens.try_consume("["):  # an extension name: CheckpointState has none
        _identifier(tokens)
        while tokens.try_consume("."):
            _identifier(tokens)
        raise tokens.error_before(f'Message type "{_MESSAGE}" does not have extensions.')
    name = tokens.token
    if not _NAME.match(name):
        raise tokens.error(f"Expected identifier or number, got {name}.")
    tokens.next()
    kind = _FIELDS.get(name)
    if kind is None:
        raise tokens.error_before(f'Message type "{_MESSAGE}" has no field named "{name}".')
    tokens.consume(":")
    read = _string if kind.startswith("string") else _double
    if kind.endswith("s"):
        if tokens.try_consume("["):  # the short form of a repeated field: name: [v1, v2]
            if not tokens.try_consume("]"):
                while True:
                    state[name].append(read(tokens))
                    if tokens.try_consume("]"):
                        break
                    tokens.consume(",")
        else:
            state[name].append(read(tokens))
    else:
        state[name] = read(tokens)  # a repeated singular field: the last one wins, as in TF's Merge
    if not tokens.try_consume(","):
        tokens.try_consume(";")


def _identifier(tokens):
    if not _IDENTIFIER.match(tokens.token):
        raise tokens.error("Expected identifier.")
    tokens.next()


def parse(text):
    """The fields of ``CheckpointState`` text (paths as written, unset fields at their defaults).

    Raises:
        ParseError: for text that is not a ``CheckpointState``, worded as protobuf's text parser words it.
    """
    state = {"model_checkpoint_path": "", "all_model_checkpoint_paths": [],
             "all_model_checkpoint_timestamps": [], "last_preserved_timestamp": 0.0}
    tokens = _Tokens(text)
    while tokens.token:
        _field(tokens, state)
    return state


def _escape(text):
    """``text`` as the body of a C string literal, the way protobuf prints strings (control bytes in octal)."""
    out = []
    for c in text:
        if c in "\"'\\":
            out.append("\\" + c)
        elif c in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c])
        elif ord(c) < 32 or ord(c) == 127:
            out.append(f"\\{ord(c):03o}")
        else:
            out.append(c)
    return "".join(out)


def format_state(model_checkpoint_path, all_model_checkpoint_paths, all_model_checkpoint_timestamps=(),
                 last_preserved_timestamp=None):
    """The text TF writes for these fields (a zero or missing ``last_preserved_timestamp`` is left out, as
    protobuf leaves out a field at its default)."""
    lines = [f'model_checkpoint_path: "{_escape(model_checkpoint_path)}"']
    lines += [f'all_model_checkpoint_paths: "{_escape(p)}"' for p in all_model_checkpoint_paths]
    lines += [f"all_model_checkpoint_timestamps: {float(t)!r}" for t in all_model_checkpoint_timestamps]
    if last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {float(last_preserved_timestamp)!r}")
    return "\n".join(lines) + "\n"


# --- the "checkpoint" state file ----------------------------------------------------------------------------------
def _relative(directory, path):
    path = os.fspath(path)
    if os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory):
        return os.path.basename(path)
    return path


def write_state(directory, latest, all_paths, timestamps=None, last_preserved=None):
    """Write the state file of ``directory`` atomically (paths inside it relative, as TF writes them)."""
    text = format_state(_relative(directory, latest), [_relative(directory, p) for p in all_paths],
                        timestamps or (), last_preserved)
    checkpoint_io.atomic_write(os.path.join(directory, STATE_FILE), lambda f: f.write(text.encode("utf-8")))


_OS_ERRORS = ((IsADirectoryError, "FailedPreconditionError", "Is a directory"),
              (PermissionError, "PermissionDeniedError", "Permission denied"),
              (FileNotFoundError, "NotFoundError", "No such file or directory"))


def _ignored(path, reason):
    from .logs import get_logger

    logger = get_logger()
    logger.warning(reason)
    logger.warning(f"{path}: Checkpoint ignored")


def read_state(directory, latest_filename=None):
    """The state of ``directory`` as a dict (paths joined to the directory), or ``None`` if there is none.

    As TF: a state file that cannot be read or parsed is logged (``WARNING:tensorflow:ParseError: 5:34 : ...``,
    then ``<file>: Checkpoint ignored``) and ignored, so a job restarts from scratch rather than failing. Bytes that
    are not UTF-8 are ignored the same way (TF raises ``UnicodeDecodeError`` there).

    Raises:
        ValueError: for a state file that parses but names no checkpoint (TF's error).
    """
    directory = os.fspath(directory)
    path = os.path.join(directory, latest_filename or STATE_FILE)
    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as f:
            state = parse(f.read().decode("utf-8"))
    except OSError as exc:
        kind, words = next(((k, w) for cls, k, w in _OS_ERRORS if isinstance(exc, cls)),
                           ("UnknownError", exc.strerror or str(exc)))
        _ignored(path, f"{kind}: {path}; {words}")
        return None
    except (ParseError, UnicodeDecodeError) as exc:
        _ignored(path, f"{type(exc).__name__}: {exc}")
        return None
    if not state["model_checkpoint_path"]:
        raise ValueError(f"Invalid checkpoint state loaded from {directory}")

    def joined(p):
        return p if os.path.isabs(p) else os.path.join(directory, p)

    state["model_checkpoint_path"] = joined(state["model_checkpoint_path"])
    state["all_model_checkpoint_paths"] = [joined(p) for p in state["all_model_checkpoint_paths"]]
    return state
