"""The tracing compiler behind ``tf.function``: trace (``trace.py``), optimise (``passes.py``), lower to generated
Python over NumPy (``lower.py``). ``tf_function.py`` is the API and its caches; ``signature.py`` the cache keys,
``specs.py`` binding and TF's signature texts, ``program.py`` one trace's program and its replay under tapes,
``recorded_call.py`` a call under one tape as one equation with a compiled backward pass, ``retracing.py`` TF's
retracing warning, ``errors_in_user_code.py`` TF's "in user code:" errors.

Loaded on the first use of ``tf.function``: ``import tapeflow`` does not pay for it.
"""

from .tf_function import ConcreteFunction, Function, function, functions_run_eagerly, run_functions_eagerly

__all__ = ["ConcreteFunction", "Function", "function", "functions_run_eagerly", "run_functions_eagerly"]
