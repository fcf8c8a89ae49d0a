"""Which functions TF 2.21 wraps for the "safe" and "all" conversion modes, by ``tf`` path, with the TF function
its fallback warning names.

The lists are TF's (``weak_tensor_ops``), as far as tapeflow has the functions, plus the public functions that reach
a wrapped one inside TF (``tf.subtract`` through ``gen_math_ops.sub``). Functions not listed (``tf.nn.relu``,
``tf.concat``, ``tf.cast``, ``tnp.add`` ...) keep their rules and give strong results.
"""

_MATH = "tensorflow.python.ops.math_ops"
_GEN = "tensorflow.python.ops.gen_math_ops"

_UNARY_MATH = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "conj", "cos", "cosh", "digamma",
               "erf", "erfc", "exp", "expm1", "floor", "imag", "lgamma", "log", "log1p", "log_sigmoid",
               "log_softmax", "negative", "real", "reciprocal", "reduce_euclidean_norm", "reduce_logsumexp",
               "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_std", "reduce_sum",
               "reduce_variance", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "softplus", "sqrt", "square",
               "tan", "tanh")
_UNARY_TOP = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "clip_by_value", "cos", "cosh", "exp",
              "expand_dims", "floor", "identity", "negative", "ones_like", "reduce_logsumexp", "reduce_max",
              "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum", "reshape", "round", "sigmoid", "sign", "sin",
              "sinh", "sqrt", "square", "squeeze", "stop_gradient", "tan", "tanh", "transpose", "zeros_like")
_UNARY_OTHER = ("linalg.diag", "linalg.diag_part", "linalg.matrix_transpose", "linalg.trace", "nn.gelu",
                "nn.leaky_relu", "nn.log_softmax", "nn.relu6", "nn.sigmoid", "nn.silu", "nn.softplus", "nn.swish",
                "nn.tanh")

UNARY = {**{f"math.{n}": f"{_MATH}.{n}" for n in _UNARY_MATH}, **{n: f"{_MATH}.{n}" for n in _UNARY_TOP},
         **{p: f"tensorflow.python.ops.{p.split('.')[0]}_ops.{p.split('.')[1]}" for p in _UNARY_OTHER}}

BINARY = {"add": f"{_MATH}.add", "math.add": f"{_MATH}.add", "subtract": f"{_GEN}.sub", "math.subtract": f"{_GEN}.sub",
          "multiply": f"{_MATH}.multiply", "math.multiply": f"{_MATH}.multiply", "divide": f"{_MATH}.divide",
          "math.divide": f"{_MATH}.divide", "truediv": f"{_MATH}._truediv_python3",
          "math.truediv": f"{_MATH}._truediv_python3", "realdiv": f"{_GEN}.real_div",
          "math.floordiv": f"{_GEN}.floor_div", "math.floormod": f"{_GEN}.floor_mod", "math.mod": f"{_GEN}.floor_mod",
          "pow": f"{_GEN}._pow", "math.pow": f"{_GEN}._pow", "math.divide_no_nan": f"{_MATH}.div_no_nan",
          "math.multiply_no_nan": f"{_MATH}.multiply_no_nan", "matmul": f"{_MATH}.matmul",
          "linalg.matmul": f"{_MATH}.matmul", "linalg.matvec": f"{_MATH}.matmul"}

COMPARISONS = {"maximum": f"{_MATH}.maximum", "math.maximum": f"{_MATH}.maximum", "minimum": f"{_MATH}.minimum",
               "math.minimum": f"{_MATH}.minimum", "equal": f"{_GEN}.equal", "math.equal": f"{_GEN}.equal"}

# TF's NumPy functions by name, with the module TF defines them in (named in the fallback warning).
_NP_MATH = ("abs", "absolute", "arccos", "arcsin", "arcsinh", "arctan", "arctanh", "bitwise_not", "cbrt", "ceil",
            "conj", "conjugate", "cos", "cosh", "deg2rad", "exp", "exp2", "expm1", "fabs", "fix", "floor", "log",
            "negative", "rad2deg", "reciprocal", "sin", "sinh", "sqrt", "tan", "tanh", "nanmean", "log2", "log10",
            "log1p", "positive", "sinc", "square", "diff", "sort", "average", "trace", "matmul")
_UNARY_NUMPY = ("abs", "absolute", "arccos", "arcsin", "arcsinh", "arctan", "arctanh", "bitwise_not", "cbrt", "ceil",
               "conj", "conjugate", "cos", "cosh", "deg2rad", "exp", "exp2", "expm1", "fabs", "fix", "floor", "log",
               "negative", "rad2deg", "reciprocal", "sin", "sinh", "sqrt", "tan", "tanh", "nanmean", "log2", "log10",
               "log1p", "positive", "sinc", "square", "diff", "sort", "average", "trace", "amax", "amin", "around",
               "arange", "array", "asanyarray", "asarray", "ascontiguousarray", "copy", "cumprod", "cumsum", "diag",
               "diagflat", "diagonal", "empty_like", "expand_dims", "flatten", "flip", "fliplr", "flipud",
               "full_like", "imag", "max", "mean", "min", "moveaxis", "ones_like", "prod", "ravel", "real", "reshape",
               "repeat", "rot90", "round", "squeeze", "std", "sum", "swapaxes", "transpose", "triu", "vander", "var",
               "zeros_like")

_NP_OPS = "tensorflow.python.ops.numpy_ops"
NUMPY_UNARY = {n: f"{_NP_OPS}.{'np_math_ops' if n in _NP_MATH else 'np_array_ops'}.{n}" for n in _UNARY_NUMPY}
NUMPY_BINARY = {"matmul": f"{_NP_OPS}.np_math_ops.matmul"}
