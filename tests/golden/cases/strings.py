"""tf.strings (TF 2.21): lengths, joins, case, strip, substr (broadcasting and its range errors), to_number and
as_string (printf's flags), format, split and bytes_split of scalars, regexes (RE2's syntax errors and
replacement rules), the three hash buckets (FarmHash, SipHash, TF's Hash64), base64, Unicode decoding, encoding,
splitting and transcoding (malformed input, every errors= mode), ngrams, string comparisons, and the errors for
non-string inputs. Vector inputs of the functions that return RaggedTensors are not here (no RaggedTensor yet)."""

import numpy as np

from tests.golden.harness import case, catch


@case
def lengths_joins_case_strip(tf):
    S = tf.strings
    words = tf.constant(["abc", "héllo", "", "😀x"])
    grid = tf.constant([["a", "b", "c"], ["d", "e", "f"]])
    return [S.length(words), S.length(words, unit="UTF8_CHAR"), S.length(tf.constant([b"\xff\xfe", b"\x80\x80ab"]),
                                                                         unit="UTF8_CHAR"),
            S.length("scalar"), catch(S.length, ["ab"], unit="X"), catch(S.length, tf.constant(["ab"]), unit="X"),
            S.join(["a", "b"]), S.join([grid, grid], separator="-"), S.join([grid, "x"], separator="+"),
            S.join([]), catch(S.join, [tf.constant(["a", "b"]), tf.constant(["c", "d", "e"])]),
            catch(S.join, [["a", "b"], ["c", "d", "e"]]), catch(S.join, "a"), catch(S.join, ["a"], tf.constant("x")),
            S.reduce_join(grid), S.reduce_join(grid, axis=1, keepdims=True, separator="|"),
            S.reduce_join(grid, axis=0), S.reduce_join(grid, axis=-1), S.reduce_join(grid, axis=[0, 1]),
            S.reduce_join(grid, axis=[1, 0], separator=","), S.reduce_join(grid, axis=None, keepdims=True),
            S.reduce_join(grid, axis=[]), S.reduce_join(tf.constant("a")), S.reduce_join(["a", "b"], separator=", "),
            S.reduce_join(tf.zeros([2, 0], tf.string), axis=1), catch(S.reduce_join, grid, axis=2),
            catch(S.reduce_join, grid, axis=-3), catch(S.reduce_join, grid, axis=[1, 1]),
            catch(S.reduce_join, tf.constant("a"), axis=0), catch(S.reduce_join, [[]], axis=1),
            S.upper(["aé", "Ab"]), S.upper(["ß", "ǆ", "ﬁ", "é"], encoding="utf-8"),
            S.lower(["Σ", "İ", "ÉA"], encoding="utf-8"), S.lower(["ÀB"]), S.upper(tf.constant([b"a\xff"]),
                                                                                 encoding="utf-8"),
            catch(S.upper, tf.constant(["a"]), encoding="latin1"),
            S.strip([" \t a b \r\n\x0c\x0b", "\xa0x\xa0", "", "   "]), S.strip(tf.constant("  s  "))]


@case
def substrings(tf):
    S, c = tf.strings, tf.constant
    grid = c([["a", "bb", "ccc"], ["d", "e", "fff"]])
    out = [S.substr("hello", 1, 3), S.substr("hello", -2, 3), S.substr("hello", 5, 3), S.substr("hello", 1, -1),
           S.substr(["hello", "ab"], [1, 0], [2, 1]), S.substr(["hello", "ab"], 1, 2),
           S.substr(grid, [[0, 1, 1], [0, 0, 1]], [[1, 1, 5], [1, 1, 2]]), S.substr(grid, [0, 1, 1], [1, 1, 1]),
           S.substr(c(["hello", "hi"]), c([[1], [2]]), c([[2], [2]])), S.substr(c("hello"), c([1, 2]), c([2, 2])),
           S.substr(["héllo"], 1, 2, unit="UTF8_CHAR"), S.substr(["héllo"], -4, 2, unit="UTF8_CHAR"),
           S.substr(["héllo"], 1, 2, unit="BYTE"), S.substr(c(["héllo"]), c([-3]), c([10]), unit="UTF8_CHAR"),
           S.substr(c(["héllo"]), c([1]), c([-5]), unit="UTF8_CHAR"), S.substr(c(["abc"]), c([1]), c([-5])),
           S.substr(c([b"\x80\x80ab"]), c([1]), c([2]), unit="UTF8_CHAR"),
           S.substr(c(["abc"]), c([1], tf.int64), c([1], tf.int64))]
    errors = [catch(S.substr, "hello", 6, 3), catch(S.substr, "hello", -6, 3),
              catch(S.substr, c("hello"), 6, 3), catch(S.substr, c("hello"), 6, 3, name="zz"),
              catch(S.substr, ["hello", "ab"], [1, 0], 2), catch(S.substr, ["hello", "ab"], 1.0, 2),
              catch(S.substr, c(["abc"]), c([1], tf.int64), c([1], tf.int32)),
              catch(S.substr, c(["abc"]), c([1]), c([1]), unit="CHAR"),
              catch(S.substr, c(["it's", "é\n\"x"]), c([9, 0]), c([1, 1])),
              catch(S.substr, c(["ok", "ab"]), c(-9), c(1)), catch(S.substr, c(["ok", "ab"]), c(-9), c(1),
                                                                   unit="UTF8_CHAR")]
    for unit in ["BYTE", "UTF8_CHAR"]:
        errors += [catch(S.substr, c(["a", "bb", "ccc"]), c([2]), c([1]), unit=unit),
                   catch(S.substr, c(["ab"]), c([0, 1, 5]), c([1, 1, 1]), unit=unit),
                   catch(S.substr, grid, c(2), c(1), unit=unit),
                   catch(S.substr, grid, c([[1, 1, 1], [0, 0, 5]]), c([[1, 1, 1], [0, 0, 1]]), unit=unit),
                   catch(S.substr, grid, c([1, 1, 5]), c([1, 1, 1]), unit=unit),
                   catch(S.substr, grid, c([[1], [5]]), c([[1], [1]]), unit=unit),
                   catch(S.substr, c("abc"), c([[1], [5]]), c([[1], [1]]), unit=unit),
                   catch(S.substr, c([["abc", "d"]]), c([[[1]]]), c([[[1]]]), unit=unit),
                   catch(S.substr, c([["abc", "d"]]), c([[1, 1, 1]]), c([[1, 1, 1]]), unit=unit)]
    return [out, errors]


@case
def to_number_parsing(tf):
    S = tf.strings
    floats = ["1.5", "-3", "1e3", " 2", "inf", "nan", "0x10", "0x1p3", ".5", "5.", "0X1F", "-0x10", "\t3\n",
              "infinity", "+inf", "INFINITY", "nAn", "1e-50", "1.5e+3", "010", "1e40", "-INF"]
    bad = ["1e", "e5", "1_0", "- 3", "--3", "0x", "1d", "0b11", "1,5", "", "abc", "1.5f"]
    ints = ["010", " -7 ", "2147483647", "-2147483648", "+12"]
    return [S.to_number(floats), S.to_number(floats, out_type=tf.float64), S.to_number(ints, out_type=tf.int32),
            S.to_number(["12", "-3", "9223372036854775807"], out_type=tf.int64), S.to_number("7"),
            S.to_number(["4294967295"], out_type=tf.uint32), S.to_number(["18446744073709551615"],
                                                                         out_type=tf.uint64),
            [catch(S.to_number, [s]) for s in bad],
            [catch(S.to_number, [s], out_type=tf.int32) for s in ["0x10", "1e3", "1.5", "2147483648", ""]],
            catch(S.to_number, ["-1"], out_type=tf.uint32), catch(S.to_number, ["9223372036854775808"],
                                                                   out_type=tf.int64),
            catch(S.to_number, ["1.5"], out_type=tf.int8), catch(S.to_number, tf.constant(["x"])),
            catch(S.to_number, tf.constant(["x"]), name="nm"), catch(S.to_number, "x")]


@case
def as_string_formats(tf):
    S = tf.strings
    x = tf.constant([1.5, -0.25, 1e10, 3.14159265, np.nan, np.inf, -np.inf, 1e-7, -np.nan])
    ints = tf.constant([1, -22, 333])
    out = [S.as_string(x), S.as_string(tf.cast(x, tf.float64)), S.as_string(x, precision=2),
           S.as_string(x, scientific=True), S.as_string(x, shortest=True), S.as_string(x, width=12),
           S.as_string(x, width=12, fill="0"), S.as_string(x, precision=3, width=10, fill=" "),
           S.as_string(x, precision=0), S.as_string(x, shortest=True, precision=3),
           S.as_string(tf.constant([100000.0, 1234567.0, 0.0001, 0.00001]), shortest=True),
           S.as_string(tf.constant(16777217.0, tf.float64), shortest=True), S.as_string(ints),
           S.as_string(ints, width=5), S.as_string(ints, width=5, fill="0"), S.as_string(ints, fill="+"),
           S.as_string(ints, fill=" "), S.as_string(ints, fill="-", width=5), S.as_string(ints, fill="#"),
           S.as_string(tf.constant([1, -22], tf.int64)), S.as_string(tf.constant([1, 22], tf.uint8)),
           S.as_string(tf.constant([2**63 + 5], tf.uint64)), S.as_string(tf.constant([-1], tf.int8)),
           S.as_string(tf.constant([True, False])), S.as_string(tf.constant([True]), width=6),
           S.as_string(tf.constant([1 + 2j, -0.5j])), S.as_string(tf.constant([1 + 2j], tf.complex128), precision=2),
           S.as_string(tf.constant([1 + 2j]), width=20), S.as_string(tf.constant([1 + 2j]), shortest=True),
           S.as_string(tf.constant([1 + 2j]), fill="0", width=12), S.as_string(tf.constant([1.5], tf.float16)),
           S.as_string(tf.constant(["s"])), S.as_string([1.5]), S.as_string(1.5), tf.as_string(7),
           S.as_string(tf.constant([1.5, 2.0]), scientific=True, precision=2, width=12)]
    for fill in ["+", "-", " ", "#", "0"]:
        out += [S.as_string(x, fill=fill), S.as_string(x, fill=fill, width=8),
                S.as_string(x, fill=fill, shortest=True, precision=2)]
    errors = [catch(S.as_string, x, fill="x"), catch(S.as_string, x, fill="ab"),
              catch(S.as_string, x, scientific=True, shortest=True), catch(S.as_string, ints, precision=2),
              catch(S.as_string, ints, scientific=True), catch(S.as_string, ints, shortest=True, precision=2),
              catch(S.as_string, tf.constant([True]), precision=2), catch(S.as_string, tf.constant(["s"]),
                                                                          precision=1),
              catch(S.as_string, tf.constant([True]), scientific=True),
              catch(S.as_string, x, fill="xy", scientific=True, shortest=True),
              catch(S.as_string, x, fill="x", scientific=True, shortest=True),
              catch(S.as_string, ints, fill="x", precision=2), catch(S.as_string, tf.constant([1.0]), name="ab",
                                                                     fill="x"),
              catch(S.as_string, [1.0], fill="x")]
    return [out, errors]


@case
def format_templates(tf):
    F = tf.strings.format
    return [F("x={} y={}", [1, "a"]), F("x={} y={}", (tf.constant([1.5, 2.0]), tf.constant([["a", "b"]]))),
            F("v={}", tf.constant(3)), F("v={}", [tf.range(20)]), F("v={}", [tf.range(20)], summarize=2),
            F("v={}", [tf.reshape(tf.range(24), [2, 3, 4])], summarize=1),
            F("v={}", [tf.reshape(tf.range(24.0), [2, 3, 4])], summarize=-1), F("v={}", [tf.constant([True, False])]),
            F("v=[]", [1], placeholder="[]"), F("{}", [tf.constant("a\"b\n")]), F("{}", [tf.constant(["a'b", "ü"])]),
            F("{}", [tf.constant(1.0 / 3)]), F("{}", [tf.constant(1.0 / 3, tf.float64)]),
            F("{}", [tf.constant([1e10, 1e-10, 123456789.0])]), F("{}", [tf.zeros([0])]),
            F("{}", [tf.constant([1 + 2j])]), F("{}", [np.float32(2.5)]), F("{}", ["plain"]),
            F("{}", [tf.constant([1, 2], tf.uint8)]), F("{}", [tf.constant(7, tf.int64)]),
            F("no placeholders", []), F("{}{}", [1, 2], name="q"), catch(F, "v={} {}", [1]), catch(F, "v={}", [1, 2])]


@case
def split_scalars(tf):
    S = tf.strings
    return [S.split("a b  c"), S.split("a,b,,c", sep=","), S.split("a,b,,c", sep=",", maxsplit=1), S.split(""),
            S.split("  a  b  ", maxsplit=1), S.split("a<>b<>c", "<>"), S.split("abc", ""), S.split("a b", ""),
            S.split("", ","), S.split(",", ","), S.split("  "), S.split("a b c", maxsplit=0),
            S.split("a,b,c", ",", maxsplit=0), S.split(tf.constant("a b")), S.split("a\x0bb\x0cc\rd\te\nf\xa0g"),
            catch(S.split, tf.constant([1.0])), catch(S.split, [1, 2]),
            S.bytes_split("abc"), S.bytes_split(""), S.bytes_split(tf.constant("é")),
            catch(S.bytes_split, tf.constant([1.0]))]


@case
def regular_expressions(tf):
    S = tf.strings
    words = tf.constant(["a", "A", "ab", "a\n", "aa", "abcd", "éx", "[[", "a{,2}", "1 x"])
    patterns = ["a)", "[a", "*a", "a**", "a{2,1}", "\\", "(?=a)", "(?<=a)b", "(?!a)", "\\1", "\\q", "x{1001}", "a++",
                "(?i)A", "\\Z", "\\z", "[[:alpha:]]+", "\\pL+", "\\p{Lu}", "[\\pN ]+x", "a{,2}", "(?P<x>a)", "(?<x>a)",
                "[z-a]", "(?x)a", "\\d+\\s\\w", "(a|ab)(c|bcd)(d*)", "a$", "é.", "\\C", "(?s).\n?", "a*?", "a??",
                "(?i:A)b?", "[^a]", "a{2}", "a{1,}", "\\x41", "[]a]", "[a-]+"]
    out = [catch(S.regex_full_match, words, p) for p in patterns]
    out += [S.regex_full_match("abc", "a.c"), S.regex_full_match(["ab"], tf.constant("a.")),
            catch(S.regex_full_match, ["ab", "xy"], tf.constant(["a.", "x"])),
            catch(S.regex_full_match, tf.constant("abc"), tf.constant("(")),
            S.regex_full_match(tf.constant([b"\xff", b"a"]), "."), catch(S.regex_full_match, ["abc"], "("),
            catch(S.regex_full_match, tf.constant([1.0]), "a")]
    R = S.regex_replace
    out += [R(["aaa", "aba"], "a", "x"), R(["aaa", "aba"], "a", "x", replace_global=False),
            R(["abc"], "(b)", r"[\1]"), R(["abc"], "(b)", r"[\0]"), R(["abc"], "(b)", r"[\2]"),
            R(["baaac"], "a*", "-"), R(["abc"], "", "-"), R(["héllo"], "", "-"), R(["héllo"], ".", "<\\0>"),
            R(["abc"], "(b)", "\\\\1"), R(["abc"], "(b)", "\\x"), R(["abc"], "(b)", "\\x", replace_global=False),
            R(["abc"], "(b)", "$1"), R(["abc"], "b", "\\"), R(["abc"], "(b)", "\\2", replace_global=False),
            R(["a\nb"], "$", "X"), R(["a\nb"], "(?m)$", "X"), R(["a\nb"], "(?m)^", "X"), R(["ab"], "x", "y"),
            R(["ab", "xy"], tf.constant("a"), "z"), R(["ab"], "a", tf.constant("z")), R("a-b_c", "[-_]", " "),
            R(["one two"], r"(\w+) (\w+)", r"\2 \1"), R(["aXbXc"], "x", "-", replace_global=True),
            R(["aXbXc"], "(?i)x", "-"), catch(R, tf.constant(["abc"]), "(", "x"),
            catch(R, tf.constant("abc"), tf.constant("("), "x"), catch(R, ["a"], tf.constant(["a", "b"]), "x")]
    return out


@case
def hash_buckets(tf):
    S = tf.strings
    words = ["", "a", "ab", "abc", "abcd", "hello", "hello world, this is a longer string!", "é😀"] + \
        ["x" * n for n in [7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 66, 80, 96, 97, 127, 128, 129, 200,
                           256, 300, 511, 512, 1000]]
    return [S.to_hash_bucket_fast(words, 2**62), S.to_hash_bucket_fast(words, 10), S.to_hash_bucket_fast("a", 1),
            S.to_hash_bucket_strong(words, 2**62, [1, 2]), S.to_hash_bucket_strong(words, 10, [0, 0]),
            S.to_hash_bucket_strong(words, 2**62, [-1, 2**63 - 1]), S.to_hash_bucket(words, 2**62),
            S.to_hash_bucket(words, 7), S.to_hash_bucket_fast(tf.constant([["a", "b"], ["c", "d"]]), 1000),
            catch(S.to_hash_bucket_fast, words, 0), catch(S.to_hash_bucket_fast, tf.constant(["a"]), -1),
            catch(S.to_hash_bucket, words, 0), catch(S.to_hash_bucket_strong, words, 0, [1, 2]),
            catch(S.to_hash_bucket_strong, words, 10, [1]), catch(S.to_hash_bucket_strong, tf.constant(["a"]), 10,
                                                                  [1, 2, 3]),
            catch(S.to_hash_bucket_strong, words, 10, (2**64 - 1, 2)),
            catch(S.to_hash_bucket_strong, tf.constant(["a"]), 10, tf.constant([1, 2], tf.int64)),
            catch(S.to_hash_bucket_fast, tf.constant([1.0]), 3)]


@case
def base64(tf):
    io = tf.io
    inputs = ["", "a", "ab", "abc", "\xff\xfe??>>", "hello world"]
    decode = ["YQ", "YWI", "YWJj", "", "YQ==", "YWI=", "_-8", "aGVsbG8gd29ybGQ"]
    bad = ["YQ=", "Y", "a b", "+/8", "YWJj====", "YQ\n", "YW=I", "Y===", "YQ===", "="]
    return [io.encode_base64(inputs), io.encode_base64(inputs, pad=True), io.encode_base64("scalar"),
            io.decode_base64(decode), io.decode_base64(io.encode_base64(tf.constant([["x", "yz"]]), pad=True)),
            [catch(io.decode_base64, [s]) for s in bad], catch(io.decode_base64, "Y"),
            catch(io.decode_base64, tf.constant("Y")), catch(io.encode_base64, tf.constant([1.0]))]


@case
def unicode_decoding(tf):
    S = tf.strings
    D = S.unicode_decode
    return [D("héllo😀", "UTF-8"), D(b"a\xffb", "UTF-8"), D(b"a\xffb", "UTF-8", errors="ignore"),
            D(b"a\xffb", "UTF-8", errors="replace", replacement_char=63), D(b"a\xe2\x82b", "UTF-8"),
            D("héllo", "UTF-16-BE"), D("hé", "UTF-8", replace_control_characters=True),
            D("h\x01\x7f\x85\x9f\x1f é", "UTF-8", replace_control_characters=True), D("hé", "latin1"),
            D("hé", "utf-8"), D("", "UTF-8"), D("ab", "ISO-8859-1"), D("aé", "US-ASCII"), D("ab", "UTF-16"),
            D("ab", "UTF-16-LE"), D("abcd", "UTF-32-LE"), D(b"\xfe\xff\x00a", "UTF-16"), D(b"\xff\xfea\x00", "UTF-16"),
            D(b"\xd8\x00\x00a", "UTF-16-BE"), D(b"\xed\xa0\x80a\xc0\x80", "UTF-8"),
            D(b"\xf8\x88\x80\x80\x80a", "UTF-8"), D(b"\xf4\x90\x80\x80a", "UTF-8"), D(b"abc", "UTF-16-BE"),
            S.unicode_decode_with_offsets("héllo", "UTF-8"), S.unicode_decode_with_offsets(b"a\xffb\xe2\x82c", "UTF-8"),
            S.unicode_decode_with_offsets(b"a\xffb", "UTF-8", errors="ignore"),
            S.unicode_decode_with_offsets("aé", "UTF-16-BE"),
            catch(D, b"a\xffb", "UTF-8", errors="strict"), catch(D, tf.constant(b"a\xff"), "UTF-8", errors="strict"),
            catch(D, "ab", "foo"), catch(D, "ab", "UTF-8", errors="bad"),
            catch(D, "ab", "UTF-8", replacement_char=0x110000), catch(D, tf.constant([1.0]), "UTF-8"),
            S.unicode_split("héllo", "UTF-8"), S.unicode_split(b"a\xffb", "UTF-8"), S.unicode_split("", "UTF-8"),
            S.unicode_split("hé", "UTF-16-BE"), S.unicode_split_with_offsets("hé", "UTF-8"),
            S.unicode_split(b"a\xffb", "UTF-8", errors="ignore"), catch(S.unicode_split, "ab", "latin1"),
            catch(S.unicode_split, b"a\xff", "UTF-8", errors="strict")]


@case
def unicode_encoding_and_transcoding(tf):
    S = tf.strings
    E, T = S.unicode_encode, S.unicode_transcode
    return [E([104, 233, 128512], "UTF-8"), E([[104, 233], [65, 66]], "UTF-8"), E([104, 0x110000, -1], "UTF-8"),
            E([104, 0x110000, -1], "UTF-8", errors="ignore"), E([104, 0xD800], "UTF-8"),
            E([104, 233], "UTF-16-BE"), E([104, 233, 128512], "UTF-32-BE"), E([[[104]]], "UTF-8"),
            E(tf.zeros([2, 0], tf.int32), "UTF-8"), E([104, 0x110000], "UTF-8", replacement_char=0x20),
            catch(E, [104, 0x110000, -1], "UTF-8", errors="strict"), catch(E, 104, "UTF-8"),
            catch(E, [104.0], "UTF-8"), catch(E, tf.constant([104], tf.int64), "UTF-8"),
            catch(E, [104, 0x110000], "UTF-8", replacement_char=-5), catch(E, [104], "UTF-16-LE"),
            T(["héllo", b"a\xffb"], "UTF-8", "UTF-16-BE"), T(["héllo", b"a\xffb"], "UTF-8", "UTF-8"),
            T([b"a\xffb"], "UTF-8", "UTF-8", errors="ignore"), T(["a\x01b"], "UTF-8", "UTF-8",
                                                                  replace_control_characters=True),
            T(["ab"], "UTF-8", "UTF-32-BE"), T(["ab"], "UTF-16-BE", "UTF-8"),
            T([b"\x00a\xd8\x00"], "UTF-16-BE", "UTF-8"),
            T(tf.constant([["é"]]), "latin1", "UTF-8"), T("x", "UTF-8", "UTF-16-BE"),
            catch(T, [b"a\xffb"], "UTF-8", "UTF-8", errors="strict"),
            catch(T, tf.constant(b"a\xff"), "UTF-8", "UTF-8", errors="strict"),
            catch(T, ["ab"], "UTF-8", "ascii"), catch(T, ["ab"], "UTF-8", "utf-8"), catch(T, "ab", "foo", "UTF-8")]


@case
def ngrams_of_dense_tensors(tf):
    N = tf.strings.ngrams
    row = ["a", "b", "c", "d"]
    return [N(row, 2), N(row, 2, separator="-"), N(row, (1, 3)), N(["a", "b", "c"], 2, pad_values=("<s>", "</s>")),
            N(["a", "b", "c"], 3, pad_values="#", padding_width=1), N(["a", "b", "c"], 2, pad_values="#"),
            N(["a", "b", "c"], 2, pad_values="#", padding_width=3), N(["a", "b", "c"], 4),
            N(["a", "b", "c"], 4, preserve_short_sequences=True),
            N(["a", "b"], 5, pad_values="#", padding_width=1, preserve_short_sequences=True),
            N([["a", "b", "c"], ["d", "e", "f"]], 2), N([["a", "b", "c"], ["d", "e", "f"]], (2, 3)),
            N([["a", "b", "c"], ["d", "e", "f"]], 4), N([[["a", "b"]]], 2), N(["x"], 1), catch(N, "a", 2),
            catch(N, ["a", "b", "c"], 0), catch(N, ["a", "b", "c"], [2, 0]), catch(N, ["a", "b", "c"], 2, pad_values=3),
            catch(N, ["a", "b", "c"], 2, padding_width=1), catch(N, ["a"], 2, pad_values="#", padding_width=0),
            catch(N, tf.constant([1.0]), 2)]


@case
def ngrams_of_ragged_tensors(tf):
    N = tf.strings.ngrams
    r = tf.ragged.constant([["a", "b", "c"], [], ["d"]])
    r3 = tf.ragged.constant([[["a", "b", "c"], []], [["d"]]])
    return [N(r, 2), N(r, (1, 2)), N(r, 2, pad_values="#"), N(r, 4, preserve_short_sequences=True), N(r3, 2),
            N(tf.zeros([2, 0], tf.string), 2), N(tf.ragged.constant([["x"]], ragged_rank=1), 1),
            N(tf.strings.split(tf.constant(["a b c", "d e"])), 2, separator="_")]


@case
def comparisons_and_non_strings(tf):
    S = tf.strings
    a = tf.constant(["a", "b"])
    f = tf.constant([1.0])
    return [tf.equal(a, "a"), a == "a", a != tf.constant(["a", "c"]), tf.not_equal(a, ["a", "c"]),
            catch(tf.equal, a, 1), catch(tf.equal, a, tf.constant(1)), catch(lambda: a == 1),
            catch(lambda: a == tf.constant([1.0, 2.0])), catch(tf.math.less, a, a), a + "x",
            [catch(fn, f) for fn in [S.length, S.upper, S.lower, S.strip, lambda x: S.join([x, x]), S.reduce_join,
                                     lambda x: S.regex_replace(x, "a", "b"), lambda x: S.substr(x, 0, 1),
                                     S.to_number, tf.io.decode_base64, lambda x: S.unicode_transcode(x, "UTF-8",
                                                                                                     "UTF-8")]],
            catch(S.length, [1, 2]), catch(S.length, [1.0]), catch(S.upper, [3]),
            S.as_string(tf.constant([["a", "b"]])), S.length(np.array(["ab", "c"])),
            S.length(np.array([b"ab", b"cde"], dtype=object))]


@case
def string_ops_in_functions(tf):
    @tf.function
    def f(x, n):
        words = tf.strings.as_string(x, precision=1)
        joined = tf.strings.reduce_join(words, separator=",")
        return [tf.strings.length(joined), tf.strings.to_number(words) * 2.0,
                tf.strings.to_hash_bucket_fast(words, n), tf.strings.regex_replace(joined, r"\.", ";"),
                tf.strings.upper(tf.strings.format("v={}", [x]))]

    return [f(tf.constant([1.25, 2.5]), 10), f(tf.constant([3.0, -4.5]), 10),
            f.experimental_get_tracing_count()]


@case
def decode_raw(tf):
    return [tf.io.decode_raw(tf.constant("Duck"), tf.uint8), tf.io.decode_raw(["abcd", "efgh"], tf.int32),
            tf.io.decode_raw(["abcd", "efgh"], tf.int16, little_endian=False),
            catch(tf.io.decode_raw, ["abcd", "efg"], tf.uint8), catch(tf.io.decode_raw, ["abc"], tf.int32),
            tf.io.decode_raw(["abcdef", "ab"], tf.int16, fixed_length=4),
            catch(tf.io.decode_raw, ["abc"], tf.int16, fixed_length=3), tf.io.decode_raw("", tf.int32),
            tf.io.decode_raw([], tf.int32), tf.io.decode_raw(tf.constant([["ab", "cd"]]), tf.uint8),
            catch(tf.io.decode_raw, "ab", tf.string), tf.io.decode_raw("ab", tf.bool),
            catch(tf.io.decode_raw, 1, tf.uint8), tf.io.decode_raw("abcdefgh", tf.float64),
            tf.function(lambda s: tf.io.decode_raw(s, tf.uint16))(tf.constant(["abcd", "efgh"]))]
