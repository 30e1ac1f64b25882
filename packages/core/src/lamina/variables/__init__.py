"""Variables (state that persists across calls) and the scopes that change how they act."""

# `lamina.ops` first: its eager dispatch imports `variable.py`, which reads dtypes from
# `lamina.ops`; loading ops here settles that loop in the one order that works, whichever
# of the two a caller (a backend importing the kit, say) reaches first.
import lamina.ops as _ops
from lamina.variables.scopes import StatelessScope as StatelessScope
from lamina.variables.scopes import SymbolicScope as SymbolicScope
from lamina.variables.variable import Variable as Variable

__all__ = ["StatelessScope", "SymbolicScope", "Variable"]
