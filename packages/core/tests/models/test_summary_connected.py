"""`summary()`'s "Connected to" column for functional models whose graph branches."""

from __future__ import annotations

import lamina
from lamina import layers


def _lines(model: lamina.Model, **kwargs: object) -> list[str]:
    out: list[str] = []
    model.summary(print_fn=out.append, **kwargs)
    return out


def _row(lines: list[str], start: str) -> str:
    matches = [line for line in lines if line.startswith(start)]
    assert len(matches) == 1, (start, lines)
    return matches[0]


def _two_inputs_shared_dense() -> lamina.Model:
    a = lamina.Input((4,), name="a")
    b = lamina.Input((4,), name="b")
    shared = layers.Dense(3, name="shared")
    merged = layers.Concatenate(name="merge")([shared(a), shared(b)])
    return lamina.Model([a, b], layers.Dense(1, name="head")(merged), name="branchy")


def test_branching_model_lists_each_layers_inbound_tensors():
    lines = _lines(_two_inputs_shared_dense())
    header = lines[2]
    assert header.split() == ["Layer", "(type)", "Output", "Shape", "Param", "#", "Connected", "to"]
    assert len(lines[1]) == 108  # Keras' default width for a table with connections
    assert _row(lines, "a (InputLayer)").endswith(" -")
    assert _row(lines, "b (InputLayer)").endswith(" -")
    # The shared layer's two calls: node 0 from input a, node 1 from input b.
    assert _row(lines, "shared (Dense)").endswith("a[0][0], b[0][0]")
    assert _row(lines, "merge (Concatenate)").endswith("shared[0][0], shared[1][0]")
    assert _row(lines, "head (Dense)").endswith("merge[0][0]")


def test_connected_column_names_the_output_index_of_a_multi_output_layer():
    class Split(layers.Layer):
        def call(self, x):
            return x[:, :2], x[:, 2:]

        def compute_output_shape(self, input_shape):
            return (input_shape[0], 2), (input_shape[0], input_shape[1] - 2)

    x = lamina.Input((5,), name="x")
    left, right = Split(name="split")(x)
    out = layers.Add(name="add")([layers.Dense(2, name="d")(right), left])
    lines = _lines(lamina.Model(x, out))
    assert _row(lines, "d (Dense)").endswith("split[0][1]")
    assert _row(lines, "add (Add)").endswith("d[0][0], split[0][0]")


def test_long_connection_lists_wrap_under_their_column():
    x = lamina.Input((2,), name="x")
    parts = [layers.Dense(1, name=f"branch_{i}")(x) for i in range(6)]
    model = lamina.Model(x, layers.Concatenate(name="cat")(parts))
    lines = _lines(model, line_length=80)
    start = lines.index(_row(lines, "cat (Concatenate)"))
    column = lines[2].index("Connected to")
    cell = []
    for line in lines[start:]:
        if line.startswith("─") or (cell and line[:column].strip()):
            break
        assert len(line) <= 80
        cell.append(line[column:])
    text = " ".join(cell)
    assert len(cell) > 1
    assert [c.strip(",") for c in text.split()] == [f"branch_{i}[0][0]" for i in range(6)]


def test_calls_of_a_shared_layer_in_another_model_are_not_listed():
    x = lamina.Input((3,), name="x")
    dense = layers.Dense(3, name="dense")
    other_input = lamina.Input((3,), name="elsewhere")
    dense(other_input)  # a call that is not part of the model below
    y = dense(x)
    model = lamina.Model(x, layers.Add(name="add")([y, x]))
    lines = _lines(model)
    assert _row(lines, "dense (Dense)").endswith("x[0][0]")
    assert "elsewhere" not in "\n".join(lines)


def test_show_trainable_adds_its_column_after_the_connections():
    model = _two_inputs_shared_dense()
    model.get_layer("head").trainable = False
    lines = _lines(model, show_trainable=True)
    assert lines[2].split()[-3:] == ["Connected", "to", "Trainable"]
    assert len(lines[1]) == 120
    assert _row(lines, "head (Dense)").split()[-2:] == ["merge[0][0]", "N"]
    assert _row(lines, "shared (Dense)").split()[-1] == "Y"


def test_chains_keep_the_three_column_table():
    x = lamina.Input((3,), name="x")
    chain = lamina.Model(x, layers.Dense(2)(layers.Dense(4)(x)))
    sequential = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    for model in (chain, sequential):
        lines = _lines(model)
        assert "Connected to" not in lines[2]
        assert len(lines[1]) == 88
