"""Gradient accumulation of Keras optimizers (``gradient_accumulation_steps``), and variables that take their
gradient as value (``overwrite_with_gradient``), as Keras 3 computes them on TensorFlow.

Mixed into :class:`~tapeflow.keras.optimizers.base.Optimizer`, which owns ``gradient_accumulation_steps``: with
``n`` steps, each call adds the gradients to accumulators (slots ``<var>_gradient_accumulator``) and every ``n``-th
call takes the step with their mean and zeroes them.
"""

from __future__ import annotations

from ...ops.array_ops import zeros
from ...ops.math_ops import maximum

__all__ = ["AccumulationMixin"]


class AccumulationMixin:
    """The accumulators' check, slots and use, and ``overwrite_with_gradient`` variables."""

    @staticmethod
    def _check_accumulation(steps):
        if steps and not steps >= 2:
            raise ValueError(f"`gradient_accumulation_steps` must be an integer >= 2. Received: "
                             f"gradient_accumulation_steps={steps}")

    def _build_accumulators(self, variables):
        """The accumulators, one slot ``<var>_gradient_accumulator`` per variable."""
        if self.gradient_accumulation_steps:
            self._accumulated_gradients = [self.add_variable_from_reference(v, name="gradient_accumulator")
                                           for v in variables]

    def _step_or_accumulate(self, grads, trainable_variables):
        """Take the step, or (with accumulation) add to the accumulators and step with their mean every n-th call."""
        steps = self.gradient_accumulation_steps
        if steps:
            accumulators = [self._accumulated_gradients[self._get_variable_index(v)] for v in trainable_variables]
            if (int(self._iterations.numpy()) + 1) % steps == 0:
                grads = [(g + acc) / steps for g, acc in zip(grads, accumulators)]
                self._step(grads, trainable_variables)
                for acc in self._accumulated_gradients:
                    if acc is not None:
                        acc.assign(zeros(acc.shape, dtype=acc.dtype))
            else:
                for g, acc in zip(grads, accumulators):
                    acc.assign(g + acc)
        else:
            self._step(grads, trainable_variables)

    def _overwrite_variables_directly_with_gradients(self, grads, variables):
        """Variables flagged ``overwrite_with_gradient`` take their gradient as value and leave the step.

        With accumulation they take the element-wise maximum of the gradients seen, at each completed step.
        """
        if not any(getattr(v, "overwrite_with_gradient", False) for v in variables):
            return grads, variables
        grads, variables = list(grads), list(variables)
        for i in range(len(grads) - 1, -1, -1):
            g, v = grads[i], variables[i]
            if not getattr(v, "overwrite_with_gradient", False):
                continue
            if self.gradient_accumulation_steps:
                acc = self._accumulated_gradients[self._get_variable_index(v)]
                if (int(self._iterations.numpy()) + 1) % self.gradient_accumulation_steps == 0:
                    v.assign(maximum(g, acc))
                    acc.assign(zeros(g.shape, dtype=g.dtype))
                else:
                    acc.assign(maximum(g, acc))
            else:
                v.assign(g)
            grads.pop(i)
            variables.pop(i)
        return grads, variables
