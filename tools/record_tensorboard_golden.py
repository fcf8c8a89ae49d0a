"""Record what TensorBoard reads from the logs TensorFlow 2.21 writes for the programs of
``tests/tensorboard_programs.py``, as ``tests/golden/fixtures/tensorboard/<program>.json``: per run and tag, the
plugin name and content, the description and each event's step, dtype, shape and value.

usage: TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tools/record_tensorboard_golden.py [program ...]

Needs TensorFlow 2.21 with the ``tensorboard`` and ``pillow`` packages. The tests run the same programs with
tapeflow and compare what TensorBoard reads from both.
"""

import json
import os
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
OUT = os.path.join(ROOT, "tests", "golden", "fixtures", "tensorboard")


def main():
    import tensorflow as tf

    from tests import tensorboard_programs as programs

    os.makedirs(OUT, exist_ok=True)
    for name in sys.argv[1:] or list(programs.PROGRAMS):
        tf.keras.utils.set_random_seed(0)
        with tempfile.TemporaryDirectory() as logdir:
            programs.PROGRAMS[name](tf, logdir)
            seen = programs.read_logdir(logdir)
            files = programs.other_files(logdir)
            if files:
                seen["__other_files__"] = files
        with open(os.path.join(OUT, f"{name}.json"), "w") as f:
            json.dump(seen, f, indent=1, sort_keys=True)
            f.write("\n")
        print(name, {run: sorted(tags) for run, tags in seen.items()})


if __name__ == "__main__":
    main()
