"""A yardstick for the MLP step: the leanest eager tape that keeps the core of tapeflow's recording semantics.

usage: python benchmarks/lean_step.py [repeats]

Not part of tapeflow and not TensorFlow's API: about 150 lines of Python that run ``benchmarks/run.py``'s MLP
step (forward under a tape, gradient, ``assign_sub(lr * g)``) with what tapeflow's hot path must also do per op:
variables whose reads are recorded and auto-watched, a tracked-id set deciding what to record, a dtype check, the
user's line for each record, and one reversed scan with rules on arrays. What it leaves out is everything else
tapeflow does per op: TF's argument handling in the public functions, allowed-dtype and shape errors, NumPy's
error state, multi-tape and forward-mode nesting, integer outputs left untracked, unbroadcasting in general, and
the provenance log behind ``tapeflow.debug.explain``.

It prints its time per step and tapeflow's, each as a ratio to hand-written NumPy in the same run, and the
bytecodes per step of each (``benchmarks/bytecodes.py`` explains why bytecodes are the figure to watch).
"""

from __future__ import annotations

import itertools
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bytecodes  # noqa: E402
import run  # noqa: E402

next_id = itertools.count(1).__next__
_new = object.__new__
_getframe = sys._getframe
TAPES = []


class Tensor:
    __slots__ = ("_value", "_id")


class Recording:
    __slots__ = ("records", "tracked", "variables")

    def __init__(self):
        self.records, self.tracked, self.variables = [], set(), {}


class Variable:
    def __init__(self, value):
        self._value, self._id = value, next_id()

    def read(self):
        t = _new(Tensor)
        t._value, t._id = self._value, next_id()
        vid = self._id
        for rec in TAPES:
            if vid not in rec.tracked:  # auto-watch on the first read
                rec.tracked.add(vid)
                rec.variables[vid] = self
            rec.records.append(("read", (self,), t, None, None))
            rec.tracked.add(t._id)
        return t

    def assign_sub(self, delta):
        value, d = self._value, delta._value
        if d.dtype is not value.dtype or d.shape != value.shape:
            raise ValueError("assign_sub: dtype or shape mismatch")
        value -= d


def execute(name, forward, inputs, attrs=None):
    xv = inputs[0]._value
    if len(inputs) == 2:
        yv = inputs[1]._value
        if yv.dtype is not xv.dtype and name != "xent":
            raise TypeError(f"{name}: dtypes differ")
        out = forward(xv, yv)
    else:
        out = forward(xv)
    result = _new(Tensor)
    result._value, result._id = out, next_id()
    where = None
    for rec in TAPES:
        tracked = rec.tracked
        for t in inputs:
            if t._id in tracked:
                break
        else:
            continue
        if where is None:
            f = _getframe(2)
            where = (f.f_code, f.f_lasti)
        rec.records.append((name, inputs, result, attrs, where))
        tracked.add(result._id)
    return result


def _operand(x):
    return x.read() if type(x) is Variable else x


def _xent_forward(logits, labels):
    shifted = logits - logits.max(1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(1, keepdims=True)
    rows = np.arange(len(labels))
    backprop = e / s
    backprop[rows, labels] -= 1
    return np.log(s[:, 0]) - shifted[rows, labels], backprop


def matmul(a, b):
    return execute("matmul", np.matmul, (_operand(a), _operand(b)))


def add(a, b):
    return execute("add", np.add, (_operand(a), _operand(b)))


def relu(x):
    return execute("relu", _relu, (x,))


def _relu(x):
    return np.maximum(x, 0)


def xent_mean(logits, labels):
    """Mean sparse softmax cross-entropy; the backprop rides in the record's attrs, as TF's fused op computes it."""
    # The fused kernel runs first, for both results; ``execute`` then records it with the loss as its output and
    # the backprop as the record's attrs (tapeflow's op has two outputs instead).
    loss, backprop = _xent_forward(logits._value, labels._value)
    t = execute("xent", lambda z, y: loss, (logits, labels), backprop)
    return execute("mean", np.mean, (t,))


def gradient(rec, target, sources):
    grads = {target._id: np.ones_like(target._value)}
    get, pop, tracked = grads.get, grads.pop, rec.tracked
    for name, inputs, out, attrs, _where in reversed(rec.records):
        g = pop(out._id, None)
        if g is None:
            continue
        if name == "read":
            vid = inputs[0]._id
            prev = get(vid)
            grads[vid] = g if prev is None else prev + g
            continue
        if name == "mean":
            x = inputs[0]._value
            in_grads = (np.full(x.shape, g / x.size, x.dtype),)
        elif name == "xent":
            in_grads = (g[:, None] * attrs, None)
        elif name == "relu":
            in_grads = (g * (out._value > 0),)
        elif name == "add":
            in_grads = (g, g.sum(0) if inputs[1]._value.shape != g.shape else g)
        else:  # matmul
            in_grads = (g @ inputs[1]._value.T, inputs[0]._value.T @ g)
        for t, ig in zip(inputs, in_grads):
            if ig is not None and t._id in tracked:
                prev = get(t._id)
                grads[t._id] = ig if prev is None else prev + ig
    out = []
    for s in sources:
        g = get(s._id)
        if g is not None:
            t = _new(Tensor)
            t._value, t._id = g, next_id()
            g = t
        out.append(g)
    return out


def _step_parts(variables_out=None):
    """The step as ``step(phase)`` (``bytecodes.count``'s interface); ``variables_out`` receives the variables."""
    x, labels, params = run._mlp_data()
    xt, yt = _new(Tensor), _new(Tensor)
    xt._value, xt._id, yt._value, yt._id = x, next_id(), labels.astype(np.int32), next_id()
    variables = [Variable(p) for p in params]
    if variables_out is not None:
        variables_out.extend(variables)
    lr = _new(Tensor)
    lr._value, lr._id = np.float32(0.01), next_id()

    def step(phase):
        phase[0] = "forward"
        rec = Recording()
        TAPES.append(rec)
        h = xt
        for i in range(0, len(variables), 2):
            h = add(matmul(h, variables[i]), variables[i + 1])
            if i < len(variables) - 2:
                h = relu(h)
        loss = xent_mean(h, yt)
        TAPES.pop()
        phase[0] = "gradient"
        grads = gradient(rec, loss, variables)
        phase[0] = "update"
        for v, g in zip(variables, grads):
            v.assign_sub(execute("mul", np.multiply, (lr, g)))

    return step


def lean_mlp(steps):
    step, phase = _step_parts(), [None]
    for _ in range(steps):
        step(phase)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    times = {"lean": [], "tapeflow": [], "numpy": []}
    fns = {"lean": lean_mlp, "tapeflow": run.mlp_tapeflow, "numpy": run.mlp_numpy}
    for _ in range(repeats):
        for name, fn in fns.items():
            fn(10)
            t0 = time.perf_counter()
            fn(300)
            times[name].append((time.perf_counter() - t0) / 300 * 1e6)
    base = min(times["numpy"])
    counts = {"lean": sum(bytecodes.count(_step_parts())[0].values()),
              "tapeflow": sum(bytecodes.count(bytecodes._mlp_step())[0].values())}
    for name in ("lean", "tapeflow"):
        best = min(times[name])
        print(f"{name:9s} {best:7.1f} us/step  {best / base:.2f}x NumPy ({base:.1f} us)  {counts[name]:6.0f} bytecodes")


if __name__ == "__main__":
    main()
