"""Keras 3's `.keras` and `.weights.h5` formats: its config schema and weight layout.

`config` translates model configs between Keras' schema and Lamina's, `layout` computes
where Keras keys each object's weights on a Lamina model, and `files` reads and writes
weights in that layout.
"""
