"""``tapeflow.debug``: tools TensorFlow lacks, for understanding a tape and its gradients."""

from .explain import Explanation, explain, explain_none_gradients
from .explain import provenance_capture as provenance
from .gradcheck import check_gradients
from .retracing import explain_retracing
from .tape_graph import tape_graph

__all__ = ["check_gradients", "tape_graph", "explain", "explain_none_gradients", "provenance", "Explanation",
           "explain_retracing"]
