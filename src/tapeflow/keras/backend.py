"""``tf.keras.backend``: resetting Keras's global state, its name counters and variable name scopes, and Keras's
type promotion (``result_type``)."""

from ._dtypes import result_type
from ._state import clear_session, get_uid, name_scope

__all__ = ["clear_session", "get_uid", "name_scope", "result_type"]
