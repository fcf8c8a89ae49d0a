"""A small CNN on scikit-learn's handwritten digits, trained twice with tapeflow.

Part 1 trains with a hand-written GradientTape loop and saves a checkpoint half way with
tf.train.CheckpointManager; part 2 restores that checkpoint into a fresh model and optimizer and
checks that training picks up exactly where it left off; part 3 trains the same network with
model.fit. A plot of loss and accuracy per epoch goes to digits_training.png next to this file.

Needs scikit-learn and matplotlib (pip install -e '.[examples]'). Set TAPEFLOW_DIGITS_QUICK=1 for a
short smoke run (fewer epochs, no accuracy target) and TAPEFLOW_DIGITS_PLOT=<path> to put the plot elsewhere.
"""

import os
import tempfile
import time
from pathlib import Path

import matplotlib
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import tapeflow as tf

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.ticker import MaxNLocator  # noqa: E402

QUICK = os.environ.get("TAPEFLOW_DIGITS_QUICK", "") not in ("", "0")
EPOCHS = 2 if QUICK else 20
CHECKPOINT_EPOCH = EPOCHS // 2        # save after this epoch, then resume from it
BATCH = 32
SEED = 0
TARGET = 0.97
PLOT = Path(os.environ.get("TAPEFLOW_DIGITS_PLOT") or Path(__file__).resolve().parent / "digits_training.png")

# --- data: 1797 grey 8x8 images, pixel values 0..16 -------------------------------------------------
digits = load_digits()
images = (digits.images / 16.0).astype("float32")[..., None]      # (N, 8, 8, 1), NHWC
labels = digits.target.astype("int64")
x_train, x_test, y_train, y_test = train_test_split(
    images, labels, test_size=0.25, random_state=SEED, stratify=labels)
print(f"digits: {len(x_train)} training and {len(x_test)} test images of 8x8 pixels, 10 classes")


def make_model():
    """The same network, with the same starting weights, every time it is called."""
    init = tf.keras.initializers.GlorotUniform
    return tf.keras.Sequential([
        tf.keras.Input(shape=(8, 8, 1)),
        tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu", kernel_initializer=init(seed=1)),
        tf.keras.layers.MaxPooling2D(2),                                   # 8x8 -> 4x4
        tf.keras.layers.Conv2D(64, 3, padding="same", activation="relu", kernel_initializer=init(seed=2)),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu", kernel_initializer=init(seed=3)),
        tf.keras.layers.Dense(10, kernel_initializer=init(seed=4)),      # logits
    ])


loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def batches(epoch):
    """Shuffled mini-batches; the order depends only on the epoch, so a resumed run sees the same batches."""
    order = np.random.default_rng(SEED + epoch).permutation(len(x_train))
    for start in range(0, len(order), BATCH):
        idx = order[start:start + BATCH]
        yield tf.constant(x_train[idx]), tf.constant(y_train[idx])


def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, axis=1), y), tf.float32))
    return float(loss), float(correct)


def test_accuracy(model):
    logits = model(tf.constant(x_test), training=False)
    return float(tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, axis=1), y_test), tf.float32)))


def run_epoch(model, optimizer, epoch):
    """One pass over the training set; returns the per-batch losses and the epoch's training accuracy."""
    losses, correct = [], 0.0
    for x, y in batches(epoch):
        loss, right = train_step(model, optimizer, x, y)
        losses.append(loss)
        correct += right
    return losses, correct / len(x_train)


def show(epoch, loss, acc, test_acc):
    print(f"  epoch {epoch:2d}/{EPOCHS}  loss {loss:.4f}  train acc {acc:.4f}  test acc {test_acc:.4f}")


timings = {}
workdir = tempfile.TemporaryDirectory(prefix="tapeflow_digits_")
checkpoint_dir = workdir.name

# --- part 1: a custom GradientTape training loop, checkpointed half way ---------------------------
print(f"\n1. custom GradientTape loop: Adam, batch {BATCH}, {EPOCHS} epochs, checkpoint after epoch {CHECKPOINT_EPOCH}")
tf.random.set_seed(SEED)
model = make_model()
optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3)
epoch_var = tf.Variable(0, dtype=tf.int64)
# The checkpoint tracks the model's variables and the optimizer, whose slots are saved under the variables they
# belong to, so a fresh optimizer picks them up when it is first used.
checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=epoch_var)
manager = tf.train.CheckpointManager(checkpoint, checkpoint_dir, max_to_keep=2)

custom = {"loss": [], "accuracy": [], "test_accuracy": []}
batch_losses = {}
start = time.perf_counter()
for epoch in range(1, EPOCHS + 1):
    losses, acc = run_epoch(model, optimizer, epoch)
    batch_losses[epoch] = losses
    custom["loss"].append(float(np.mean(losses)))
    custom["accuracy"].append(acc)
    custom["test_accuracy"].append(test_accuracy(model))
    show(epoch, custom["loss"][-1], acc, custom["test_accuracy"][-1])
    if epoch == CHECKPOINT_EPOCH:
        epoch_var.assign(epoch)
        path = manager.save()
        print(f"  saved {Path(path).name} (optimizer step {int(optimizer.iterations.numpy())})")
timings["custom loop"] = time.perf_counter() - start
custom_test_acc = custom["test_accuracy"][-1]

# --- part 2: restore the checkpoint into a fresh model and optimizer, and carry on -----------------
print(f"\n2. resume from {Path(manager.latest_checkpoint).name} in a fresh model and optimizer")
start = time.perf_counter()
resumed = make_model()
resumed_optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3)
resumed_epoch = tf.Variable(0, dtype=tf.int64)
restore_checkpoint = tf.train.Checkpoint(model=resumed, optimizer=resumed_optimizer, epoch=resumed_epoch)
restore_checkpoint.restore(manager.latest_checkpoint).assert_existing_objects_matched()
next_epoch = int(resumed_epoch.numpy()) + 1
print(f"  restored: epoch {int(resumed_epoch.numpy())}, optimizer step {int(resumed_optimizer.iterations.numpy())}, "
      f"test acc {test_accuracy(resumed):.4f}")
resumed_losses = []
for epoch in range(next_epoch, EPOCHS + 1):
    resumed_losses += run_epoch(resumed, resumed_optimizer, epoch)[0]
reference = [v for epoch in range(next_epoch, EPOCHS + 1) for v in batch_losses[epoch]]
same = np.array_equal(resumed_losses, reference)
resumed_test_acc = test_accuracy(resumed)
print(f"  epoch {next_epoch}, first losses resumed:       " + " ".join(f"{v:.6f}" for v in resumed_losses[:4]))
print(f"  epoch {next_epoch}, first losses uninterrupted: " + " ".join(f"{v:.6f}" for v in reference[:4]))
span = f"epoch {EPOCHS}" if next_epoch == EPOCHS else f"epochs {next_epoch}-{EPOCHS}"
print(f"  {span}: all {len(reference)} batch losses identical to the uninterrupted run: {same}"
      + ("" if same else f" (largest difference {np.max(np.abs(np.subtract(resumed_losses, reference))):.2e})"))
print(f"  resumed model after epoch {EPOCHS}: optimizer step {int(resumed_optimizer.iterations.numpy())}, "
      f"test acc {resumed_test_acc:.4f}")
timings["resume"] = time.perf_counter() - start

# --- part 3: the same network with compile / fit / evaluate -------------------------------------------
print(f"\n3. model.fit: Adam, batch {BATCH}, {EPOCHS} epochs")
np.random.seed(SEED)          # fit shuffles with NumPy's global generator
tf.random.set_seed(SEED)
fitted = make_model()
fitted.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=1e-3), loss=loss_fn, metrics=["accuracy"])
start = time.perf_counter()
history = fitted.fit(x_train, y_train, batch_size=BATCH, epochs=EPOCHS, validation_data=(x_test, y_test),
                     verbose=0)
for epoch in range(EPOCHS):
    show(epoch + 1, history.history["loss"][epoch], history.history["accuracy"][epoch],
         history.history["val_accuracy"][epoch])
fit_test_loss, fit_test_acc = fitted.evaluate(x_test, y_test, verbose=0)
predicted = np.argmax(fitted.predict(x_test, verbose=0), axis=1)
timings["model.fit"] = time.perf_counter() - start

# --- plot and report ------------------------------------------------------------------------------------
epochs = np.arange(1, EPOCHS + 1)
fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
ax_loss.plot(epochs, custom["loss"], "o-", label="GradientTape loop")
ax_loss.plot(epochs, history.history["loss"], "s-", label="model.fit")
ax_loss.set(title="training loss", xlabel="epoch", ylabel="cross-entropy", yscale="log")
ax_acc.plot(epochs, custom["accuracy"], "o-", label="GradientTape loop, train")
ax_acc.plot(epochs, custom["test_accuracy"], "o--", label="GradientTape loop, test")
ax_acc.plot(epochs, history.history["accuracy"], "s-", label="model.fit, train")
ax_acc.plot(epochs, history.history["val_accuracy"], "s--", label="model.fit, test")
ax_acc.set(title="accuracy", xlabel="epoch", ylabel="accuracy")
for ax in (ax_loss, ax_acc):
    ax.axvline(CHECKPOINT_EPOCH, color="grey", linestyle=":", linewidth=1, label="checkpoint")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    ax.legend()
fig.suptitle("tapeflow: CNN on scikit-learn digits")
fig.tight_layout()
fig.savefig(PLOT, dpi=100)
plt.close(fig)

print("\nsummary")
print(f"  GradientTape loop: test accuracy {custom_test_acc:.4f}  ({timings['custom loop']:.1f} s)")
print(f"  resume check:      {'identical losses' if same else 'losses differ'}  ({timings['resume']:.1f} s)")
print(f"  model.fit:         test accuracy {fit_test_acc:.4f}, test loss {fit_test_loss:.4f}, "
      f"predict agrees on {np.mean(predicted == y_test):.4f}  ({timings['model.fit']:.1f} s)")
print(f"  total training time {sum(timings.values()):.1f} s; plot written to {PLOT.name}")
workdir.cleanup()

if not same:
    raise SystemExit("resumed training did not reproduce the uninterrupted run")
if not QUICK and min(custom_test_acc, fit_test_acc) < TARGET:
    raise SystemExit(f"test accuracy below {TARGET:.0%}")
