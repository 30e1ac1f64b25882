"""Object paths (issue 12, items 8 and 9): keys become safe components; the walk is flat.

A layer path names HDF5 groups and asset folders. A dict key such as ``"../../.."``
(which a loaded config can choose) must not move a save outside its temporary folder,
and a deep or long model must not recurse once per level.
"""

from __future__ import annotations

import os
import pathlib
import tempfile
import zipfile
from typing import ClassVar

import numpy as np
import pytest

import lamina
from lamina_saving.graph import is_safe_component, path_component, walk_layers

ESCAPE = "../../.."


@lamina.saving.register_serializable(package="ObjectPathTests")
class Vocab(lamina.layers.Layer):
    """Saves one asset file and a weight; remembers where it was asked to save them."""

    folders: ClassVar[list[str]] = []

    def __init__(self, words="a b c", **kwargs):
        super().__init__(**kwargs)
        self.words = words
        self.loaded = None

    def build(self, shape):
        self.scale = self.add_weight(shape=(shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.scale

    def save_assets(self, folder):
        Vocab.folders.append(folder)
        with open(os.path.join(folder, "vocab.txt"), "w") as f:
            f.write(self.words)

    def load_assets(self, folder):
        with open(os.path.join(folder, "vocab.txt")) as f:
            self.loaded = f.read()

    def get_config(self):
        return {**super().get_config(), "words": self.words}


@lamina.saving.register_serializable(package="ObjectPathTests")
class Keyed(lamina.Model):
    """Holds its layer in a dict under a key its config chooses."""

    def __init__(self, key=ESCAPE, **kwargs):
        super().__init__(**kwargs)
        self.key = key
        self.table = {key: Vocab(words=f"words under {key!r}")}

    def call(self, x):
        return self.table[self.key](x)

    def get_config(self):
        return {**super().get_config(), "key": self.key}


@pytest.mark.parametrize("key", [ESCAPE, "..", ".", "", "a/b", "C:", "x\\..\\..", "%2E%2E"])
def test_dict_keys_cannot_move_assets_outside_the_save(tmp_path, monkeypatch, key):
    system_tmp = tmp_path / "system-tmp"  # where save_model's temporary folder goes
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    Vocab.folders.clear()
    model = Keyed(key)
    x = np.ones((2, 3), "float32")
    model(x)
    model.table[key].scale.assign(np.array([1.0, 2.0, 3.0], "float32"))
    path = tmp_path / "out" / "keyed.lamina"
    model.save(path)
    [folder] = Vocab.folders
    assert ".." not in pathlib.PurePath(folder).parts
    leaked = [p for p in tmp_path.rglob("vocab.txt")]
    assert leaked == [], f"asset written outside the archive's temporary folder: {leaked}"
    with zipfile.ZipFile(path) as z:
        assets = [n for n in z.namelist() if n.endswith("vocab.txt")]
    assert assets == [f"assets/table/{path_component(key)}/vocab.txt"]
    loaded = lamina.saving.load_model(path)
    assert loaded.table[key].loaded == f"words under {key!r}"
    np.testing.assert_array_equal(
        lamina.ops.convert_to_numpy(loaded.table[key].scale), [1.0, 2.0, 3.0]
    )


def test_path_components_are_safe_one_to_one_and_leave_ordinary_keys_alone():
    keys = ["", ".", "..", "...", "a/b", "a%2Fb", "%", "C:", "x\x00", "a\\b", "tab\t", "dense",
            "0", "blocks", "dense_1", "名前"]
    escaped = [path_component(k) for k in keys]
    assert len(set(escaped)) == len(keys)
    assert all(is_safe_component(e) for e in escaped)
    for ordinary in ["dense", "0", "blocks", "dense_1", "名前", "..."]:
        assert path_component(ordinary) == ordinary
    for unsafe in ["", ".", "..", "a/b", "a\\b", "C:", "x\x00"]:
        assert not is_safe_component(unsafe)


class Chain(lamina.layers.Layer):
    """A layer holding the next one: nesting as deep as the chain is long."""

    def __init__(self, child=None, **kwargs):
        super().__init__(**kwargs)
        self.child = child


def test_walk_is_iterative_for_deep_nesting():
    top = None
    for _ in range(3000):  # three times Python's default recursion limit
        top = Chain(top)
    paths = [path for path, _ in walk_layers(top)]
    assert len(paths) == 3000
    assert paths[0] == "." and paths[-1] == "/".join(["child"] * 2999)


class Wide(lamina.Model):
    """Ten thousand layers in one list, each reached once."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.blocks = [lamina.layers.Identity() for _ in range(n)]
        self.again = self.blocks[:10]  # the same layers by a second route: walked once


def test_walk_visits_ten_thousand_layers_once_each_in_order():
    model = Wide(10_000)
    walked = list(walk_layers(model))
    assert len(walked) == 10_001
    assert [p for p, _ in walked[1:4]] == ["blocks/0", "blocks/1", "blocks/2"]
    assert len({id(layer) for _, layer in walked}) == 10_001
