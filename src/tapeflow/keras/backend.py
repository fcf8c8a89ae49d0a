"""``tf.keras.backend``: resetting Keras's global state, its name counters and variable name scopes."""

from ._state import clear_session, get_uid, name_scope

__all__ = ["clear_session", "get_uid", "name_scope"]
