"""Work a pipeline does in other threads: ``prefetch`` computes elements ahead of the consumer, ``map`` with
``num_parallel_calls`` applies its function to several elements at once.

NumPy releases the GIL inside its kernels, so a NumPy-heavy step and the pipeline feeding it overlap. Each thread
has its own tapes and traces (``_core/state.py`` keeps them per thread), so ops the pipeline runs there are never
recorded by the training step's tape. Elements keep their order (``deterministic=False`` lets a parallel ``map``
hand them out as they finish); an error is raised where its element would have been, and a consumer that stops
early (``take``, a ``break``) stops the thread.
"""

from __future__ import annotations

import collections
import concurrent.futures
import queue
import threading

__all__ = ["ahead", "parallel_map", "DEFAULT_BUFFER"]

DEFAULT_BUFFER = 4  # what ``AUTOTUNE`` prefetches: enough to cover a step's jitter, little memory
_END = object()
_POLL = 0.05  # seconds a blocked producer waits before it looks whether the consumer has gone


def ahead(make, size):
    """The items of the iterator ``make()`` gives, computed in a background thread at most ``size`` ahead."""
    items = queue.Queue(maxsize=max(1, size))
    stop = threading.Event()

    def put(entry):
        while not stop.is_set():
            try:
                items.put(entry, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def work():
        try:
            for item in make():
                if not put((True, item)):
                    return
            put((True, _END))
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised where the element would be
            put((False, exc))

    thread = threading.Thread(target=work, name="tapeflow-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            ok, item = items.get()
            if not ok:
                raise item
            if item is _END:
                return
            yield item
    finally:
        stop.set()


def parallel_map(apply, source, workers, deterministic=True):
    """``apply(element)`` for each element of the iterator ``source``, ``workers`` calls at a time; results in
    the elements' order, or as they finish when not ``deterministic``."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tapeflow-map")
    pending = collections.deque()
    try:
        source = iter(source)
        exhausted = False
        while True:
            while not exhausted and len(pending) < 2 * workers:
                try:
                    element = next(source)
                except StopIteration:
                    exhausted = True
                    break
                pending.append(pool.submit(apply, element))
            if not pending:
                return
            if deterministic:
                done = pending.popleft()
            else:
                done = next(concurrent.futures.as_completed(pending))
                pending.remove(done)
            yield done.result()
    finally:
        for f in pending:
            f.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
