"""The object the ``lamina.saving`` entry point gives the core (`SavingSupport`)."""

from __future__ import annotations

from typing import Any

from lamina_saving import archive, weights


class _Support:
    """Routes the core's saving facade to this package."""

    def save_model(
        self, model: Any, filepath: Any, overwrite: bool = True, zipped: bool | None = None
    ) -> None:
        archive.save_model(model, filepath, overwrite=overwrite, zipped=zipped)

    def load_model(
        self,
        filepath: Any,
        custom_objects: dict[str, Any] | None = None,
        compile: bool = True,
        safe_mode: bool = True,
    ) -> Any:
        return archive.load_model(
            filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode
        )

    def save_weights(
        self,
        model: Any,
        filepath: Any,
        overwrite: bool = True,
        max_shard_size: float | None = None,
    ) -> None:
        weights.save_weights(model, filepath, overwrite=overwrite, max_shard_size=max_shard_size)

    def load_weights(
        self, model: Any, filepath: Any, skip_mismatch: bool = False, **kwargs: Any
    ) -> Any:
        return weights.load_weights(model, filepath, skip_mismatch=skip_mismatch, **kwargs)

    def extra(self, name: str) -> Any:
        import lamina_saving

        if name not in lamina_saving.__all__:
            raise AttributeError(f"lamina-saving has no {name!r}.")
        return getattr(lamina_saving, name)


support = _Support()
