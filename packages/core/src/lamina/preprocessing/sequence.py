"""`lamina.preprocessing.sequence`: `pad_sequences`."""

from lamina.utils.sequence import pad_sequences as pad_sequences

__all__ = ["pad_sequences"]
