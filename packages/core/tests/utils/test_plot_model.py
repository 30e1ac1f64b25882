"""`plot_model` / `model_to_dot`: the graph drawn with pydot, and clear errors without it."""

from __future__ import annotations

import re
import shutil
import sys

import pytest

import lamina
from lamina import layers
from lamina.utils import model_to_dot, plot_model


def _branching() -> lamina.Model:
    a = lamina.Input((4,), name="a")
    b = lamina.Input((4,), name="b")
    shared = layers.Dense(3, activation="relu", name="shared")
    merged = layers.Concatenate(name="merge")([shared(a), shared(b)])
    return lamina.Model([a, b], layers.Dense(1, name="head")(merged))


def _boxes_and_edges(dot) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Each box's layer name (from its label) by node id, and the edges as name pairs,
    clusters included."""
    names: dict[str, str] = {}
    pairs: list[tuple[str, str]] = []

    def collect(graph) -> None:
        for node in graph.get_nodes():
            match = re.search(r"</font> \(([^)]+)\)", node.get("label") or "")
            if match:
                names[node.get_name()] = match.group(1)
        pairs.extend((e.get_source(), e.get_destination()) for e in graph.get_edges())
        for sub in graph.get_subgraphs():
            collect(sub)

    collect(dot)
    return names, {(names[tail], names[head]) for tail, head in pairs}


def test_missing_pydot_is_an_import_error_naming_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pydot", None)  # `import pydot` now fails
    model = _branching()
    for call in (lambda: model_to_dot(model), lambda: plot_model(model, tmp_path / "m.png")):
        with pytest.raises(ImportError, match=r"pydot.*pip install pydot.*graphviz"):
            call()


def test_unknown_keyword_and_layer_range_are_refused():
    pytest.importorskip("pydot")
    model = _branching()
    with pytest.raises(ValueError, match="layer_range"):
        model_to_dot(model, layer_range=["a", "head"])
    with pytest.raises(ValueError, match="unrecognized keyword arguments: \\['colour'\\]"):
        model_to_dot(model, colour="red")
    with pytest.raises(ValueError, match="rankdir"):
        model_to_dot(model, rankdir="BT")


def test_unbuilt_model_is_refused():
    pytest.importorskip("pydot")
    model = lamina.Sequential([layers.Dense(2)])
    with pytest.raises(ValueError, match="not built"):
        model_to_dot(model)


def test_branching_graph_has_a_box_per_layer_and_an_edge_per_connection():
    pytest.importorskip("pydot")
    dot = model_to_dot(_branching())
    names, edges = _boxes_and_edges(dot)
    assert sorted(names.values()) == ["a", "b", "head", "merge", "shared"]
    assert edges == {("a", "shared"), ("b", "shared"), ("shared", "merge"), ("merge", "head")}
    assert dot.get("rankdir") == "TB"
    assert dot.get("dpi") == 200


def test_details_appear_only_when_asked_for():
    pytest.importorskip("pydot")
    model = _branching()
    model.get_layer("head").trainable = False

    def label(dot, name: str) -> str:
        labels = [n.get("label") or "" for n in dot.get_nodes()]
        return next(text for text in labels if f"({name})" in text)

    plain = model_to_dot(model)
    assert "Output shape" not in plain.to_string() and "dtype" not in plain.to_string()
    full = model_to_dot(
        model, show_shapes=True, show_dtype=True, show_layer_activations=True, show_trainable=True
    )
    shared = label(full, "shared")
    assert "Input shape: (None, 4)" in shared and "Output shape: (None, 3)" in shared
    assert "Activation: relu" in shared and "dtype: float32" in shared
    assert "Trainable" in shared
    assert "Non-trainable" in label(full, "head")
    assert "Input shape: (None, 3), (None, 3)" in label(full, "merge")
    unnamed = model_to_dot(model, show_layer_names=False)
    assert "(shared)" not in unnamed.to_string() and "<b>Dense</b>" in unnamed.to_string()


def test_sequential_is_a_chain_and_a_subclassed_model_one_box():
    pytest.importorskip("pydot")
    seq = lamina.Sequential(
        [lamina.Input((3,)), layers.Dense(4, name="one"), layers.Dense(2, name="two")]
    )
    _, edges = _boxes_and_edges(model_to_dot(seq))
    assert edges == {("one", "two")}

    class Sub(lamina.Model):
        def __init__(self):
            super().__init__(name="sub")
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    sub = Sub()
    sub(lamina.ops.ones((1, 3)))
    names, edges = _boxes_and_edges(model_to_dot(sub))
    assert list(names.values()) == ["sub"] and not edges


def test_expand_nested_draws_a_cluster_wired_to_its_first_and_last_layers():
    pytest.importorskip("pydot")
    inner = lamina.Sequential(
        [lamina.Input((3,)), layers.Dense(2, name="in_1"), layers.Dense(2, name="in_2")],
        name="inner",
    )
    x = lamina.Input((3,), name="x")
    outer = lamina.Model(x, layers.Dense(1, name="last")(inner(x)))
    _, collapsed = _boxes_and_edges(model_to_dot(outer))
    assert collapsed == {("x", "inner"), ("inner", "last")}
    dot = model_to_dot(outer, expand_nested=True)
    _, edges = _boxes_and_edges(dot)
    assert edges == {("x", "in_1"), ("in_1", "in_2"), ("in_2", "last")}
    assert [g.get_name() for g in dot.get_subgraphs()] == ["cluster_inner"]


def test_plot_model_writes_dot_source_without_graphviz(monkeypatch, tmp_path):
    pytest.importorskip("pydot")
    monkeypatch.setenv("PATH", "")  # no `dot` program
    model = _branching()
    target = tmp_path / "model.dot"
    assert plot_model(model, to_file=target, show_layer_names=True, rankdir="LR") is None
    written = target.read_text()
    assert written == model_to_dot(model, rankdir="LR").to_string()
    assert "rankdir=LR" in written and "(shared)" in written
    with pytest.raises(ImportError, match=r"Graphviz.*'png'.*apt-get install graphviz"):
        plot_model(model, to_file=tmp_path / "model.png")
    assert not (tmp_path / "model.png").exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's `dot` program not on PATH")
def test_plot_model_renders_an_image_with_graphviz(tmp_path):
    pytest.importorskip("pydot")
    target = tmp_path / "model.png"
    plot_model(_branching(), to_file=target, show_shapes=True)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
