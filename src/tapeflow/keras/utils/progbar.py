"""The text progress bar Keras prints during ``fit``/``evaluate``/``predict`` (``keras.utils.Progbar``'s format).

Verbose 1 redraws one line (bold ``current/target``, a green/grey bar of ``━``, ETA or elapsed time, time per step,
then ``- name: value`` per metric); verbose 2 prints a single plain line when the bar is finalized.
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

__all__ = ["Progbar"]


def _write(message):
    sys.stdout.write(message)
    sys.stdout.flush()


def _format_time(seconds_per_unit, unit_name):
    if seconds_per_unit >= 1 or seconds_per_unit == 0:
        return f" {seconds_per_unit:.0f}s/{unit_name}"
    if seconds_per_unit >= 1e-3:
        return f" {seconds_per_unit * 1e3:.0f}ms/{unit_name}"
    return f" {seconds_per_unit * 1e6:.0f}us/{unit_name}"


def _format_value(avg, signed):
    # Keras compares |avg| in verbose 1 but avg itself in verbose 2, so negatives print in e-notation there.
    big = abs(avg) > 1e-3 if signed else avg > 1e-3
    return f" {avg:.4f}" if big else f" {avg:.4e}"


class Progbar:
    """A progress bar over ``target`` steps (``None`` if unknown).

    Metrics not declared stateful are averaged over the steps seen (weighted by steps per update) until the final
    update, which shows the values passed to it as they are.
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None, stateless_metrics=None,
                 unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError(
                "Only one of `stateful_metrics` or `stateless_metrics` can be provided. `stateful_metrics` is used "
                "to make metrics stateless by default (with an exclusion list), while `stateless_metrics` is used "
                "to make metrics stateful by default (with an exclusion list).")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        if stateful_metrics is not None:
            self.stateful_metrics, self.stateless_metrics = set(stateful_metrics), None
        elif stateless_metrics is not None:
            self.stateful_metrics, self.stateless_metrics = None, set(stateless_metrics)
        else:
            self.stateful_metrics, self.stateless_metrics = set(), None
        # Keras's test includes "posix" in sys.modules, so on POSIX systems the bar always redraws in place.
        self._dynamic_display = ((hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
                                 or "ipykernel" in sys.modules or "posix" in sys.modules
                                 or "PYCHARM_HOSTED" in os.environ)
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0
        self._time_after_first_step = None
        self._prev_total_width = 0

    def _is_stateless(self, name):
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def _step_duration(self, current, now):
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_unit

    def _average(self, name):
        total, count = self._values[name]
        if not isinstance(total, float):
            total = np.mean(total)
        return total / max(1, count)

    def update(self, current, values=None, finalize=None):
        """Move the bar to step ``current``; ``values`` is a list of ``(name, value)`` for the last step."""
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for name, value in values or []:
            if name not in self._values_order:
                self._values_order.append(name)
            if self._is_stateless(name) and not finalize:
                weight = max(current - self._seen_so_far, 1)
                if name in self._values:
                    self._values[name][0] += value * weight
                    self._values[name][1] += weight
                else:
                    self._values[name] = [value * weight, weight]
            else:
                self._values[name] = [value, 1]
        self._seen_so_far = current
        now = time.time()
        per_unit = self._step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw(current, now, per_unit, finalize)
        elif self.verbose == 2 and finalize and self.target is not None and self.target > 0:
            digits = int(math.log10(self.target)) + 1
            line = f"%{digits}d/%d" % (current, self.target) + f" - {now - self._start:.0f}s"
            line += " -" + _format_time(per_unit, self.unit_name)
            for name in self._values_order:
                line += f" - {name}:" + _format_value(self._average(name), signed=False)
            _write(line + "\n")
        self._last_update = now

    def _draw(self, current, now, per_unit, finalize):
        message = ("\b" * self._prev_total_width + "\r") if self._dynamic_display else "\n"
        hidden = 0  # characters of ANSI escapes, not counted in the visible width
        known = self.target is not None and self.target > 0
        if known:
            digits = int(math.log10(self.target)) + 1
            bar = "\x1b[1m" + f"%{digits}d/%d" % (current, self.target) + "\x1b[0m "
            hidden += 8
            done = int(self.width * float(current) / self.target)
            if done > 0:
                bar += "\x1b[32m" + "━" * done + "\x1b[0m"
                hidden += 9
            bar += "\x1b[37m" + "━" * (self.width - done) + "\x1b[0m"
            hidden += 9
        else:
            bar = "%7d/Unknown" % current
        if known and not finalize:
            eta = per_unit * (self.target - current)
            if eta > 3600:
                eta_text = "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
            elif eta > 60:
                eta_text = "%d:%02d" % (eta // 60, eta % 60)
            else:
                eta_text = "%ds" % eta
            info = f" \x1b[1m{eta_text}\x1b[0m"
        else:
            info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
        hidden += 8
        info += _format_time(per_unit, self.unit_name)
        for name in self._values_order:
            info += f" - {name}:"
            if isinstance(self._values[name], list):
                info += _format_value(self._average(name), signed=True)
            else:
                info += f" {self._values[name]}"
        message += bar + info
        width = len(bar) + len(info) - hidden
        if self._prev_total_width > width:
            message += " " * (self._prev_total_width - width)
        if finalize:
            message += "\n"
        _write(message)
        self._prev_total_width = width

    def add(self, n, values=None):
        """Advance the bar by ``n`` steps."""
        self.update(self._seen_so_far + n, values)
