"""``tf.keras.callbacks``: Keras 3's training-loop hooks (``Callback``, ``CallbackList``, ``History`` and friends).

A callback sees the loop only through its hooks and the ``logs`` dicts passed to them, plus ``self.model`` and
``self.params``. Custom loops drive a ``CallbackList`` by hand; ``Model.fit`` drives one the same way. The callbacks
live in modules by kind: ``base`` (``Callback``, ``LambdaCallback``), ``callback_list``, ``loggers`` (``History``,
``ProgbarLogger``, ``CSVLogger``), ``monitor`` (``EarlyStopping``, ``ModelCheckpoint``, ``TerminateOnNaN``) and
``learning_rate`` (``LearningRateScheduler``, ``ReduceLROnPlateau``) and ``tensorboard`` (``TensorBoard``).
"""

from .base import Callback, LambdaCallback
from .callback_list import CallbackList
from .learning_rate import LearningRateScheduler, ReduceLROnPlateau
from .loggers import CSVLogger, History, ProgbarLogger
from .monitor import EarlyStopping, ModelCheckpoint, TerminateOnNaN
from .tensorboard import TensorBoard

__all__ = ["Callback", "CallbackList", "CSVLogger", "EarlyStopping", "History", "LambdaCallback",
           "LearningRateScheduler", "ModelCheckpoint", "ProgbarLogger", "ReduceLROnPlateau", "TensorBoard",
           "TerminateOnNaN"]
