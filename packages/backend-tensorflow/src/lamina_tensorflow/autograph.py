"""Keep AutoGraph out of Lamina's own code, as TensorFlow does for Keras.

A user's ``@tf.function`` (AutoGraph on by default) converts every Python function it
reaches, recursively. Reaching a Lamina model it would rewrite the whole of Lamina's layer,
op and dispatch code: tracing took seconds where plain TensorFlow takes milliseconds, and
Lamina's code branches on static shapes in Python on purpose (tensor-dependent branches use
`ops.cond`), so nothing is gained. TensorFlow ships the same rule for ``keras``; the rule
lives in AutoGraph's configuration, which has no public setter.
"""

from __future__ import annotations

from typing import Any

PACKAGES = ("lamina", "lamina_tensorflow")


def skip_lamina_in_autograph() -> bool:
    """Add a do-not-convert rule for each of `PACKAGES` (once).

    Returns:
        Whether the rules are in place: False on a TensorFlow that moved AutoGraph's
        configuration, where traces are slower but still correct.
    """
    try:
        from tensorflow.python.autograph.core import config
    except ImportError:
        return False
    _config: Any = config
    rules = tuple(_config.CONVERSION_RULES)
    missing = tuple(
        _config.DoNotConvert(name)
        for name in PACKAGES
        if not any(isinstance(rule, _config.DoNotConvert) and rule.matches(name) for rule in rules)
    )
    # The first matching rule wins, so these go before TensorFlow's own.
    _config.CONVERSION_RULES = missing + rules
    return True
