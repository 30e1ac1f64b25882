"""lamina.utils.Config: attribute and item access, freezing, JSON."""

from __future__ import annotations

import json

import pytest

from lamina.utils import Config


def test_attributes_items_and_dict_methods() -> None:
    config = Config(units=8, name="mlp")
    config.rate = 0.5
    config["depth"] = 2
    assert config.units == 8 and config["rate"] == 0.5 and config.get("missing", 1) == 1
    assert list(config) == ["depth", "name", "rate", "units"] and len(config) == 4
    assert "name" in config and config.as_dict()["depth"] == 2
    assert json.loads(config.to_json()) == config.as_dict()
    config.update(units=16)
    assert config.pop("name") == "mlp" and config.units == 16
    del config.depth
    del config["rate"]
    assert dict(config.items()) == {"units": 16}
    with pytest.raises(AttributeError, match="Did you mean 'units'"):
        config.unit


def test_frozen_config_refuses_changes() -> None:
    config = Config(a=1)
    config.freeze()
    assert config.frozen
    for change in (
        lambda: setattr(config, "a", 2),
        lambda: config.__setitem__("b", 1),
        lambda: config.update(a=3),
        lambda: config.pop("a"),
        lambda: config.__delitem__("a"),
    ):
        with pytest.raises(ValueError, match="frozen"):
            change()
    config.unfreeze()
    config.a = 2
    assert config.a == 2 and not config.frozen
