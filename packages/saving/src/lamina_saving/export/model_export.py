"""`export_model`: what ``Model.export`` runs (the core reaches it through the facade)."""

from __future__ import annotations

from typing import Any

from lamina_saving.export.archive import ExportArchive, export_ops, import_tensorflow
from lamina_saving.export.specs import signature_for_model

EXPORT_FORMATS = ("tf_saved_model",)


def export_model(
    model: Any,
    filepath: Any,
    format: str = "tf_saved_model",
    verbose: bool = True,
    input_signature: Any = None,
    jax2tf_kwargs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> ExportArchive:
    """Write `model`'s inference call as a TensorFlow SavedModel that plain TF serves.

    The artifact's ``serve`` method and ``serving_default`` signature run
    ``model(x, training=False)``. On jax the model is converted with jax2tf (inference
    only); torch and numpy models cannot be exported this way.

    Args:
        model: a built Lamina model (or layer).
        filepath: the SavedModel directory to write.
        format: the artifact format; only ``"tf_saved_model"``.
        verbose: print the endpoints written.
        input_signature: one spec per positional input (`lamina.InputSpec` with a shape,
            ``lamina.Input`` tensors, ``tf.TensorSpec``, ...); None infers it from the
            model's inputs, or from the shape a subclassed model was built with.
        jax2tf_kwargs: extra `jax2tf.convert` arguments (jax backend only).
        **kwargs: none are accepted; present so unknown options fail by name.

    Returns:
        The `ExportArchive` that was written.

    Raises:
        ValueError: an unknown `format`, a backend other than tensorflow or jax, an
            unbuilt model without `input_signature`, or a bad signature.
        ImportError: TensorFlow is not installed.
        TypeError: unknown keyword arguments.
    """
    if format not in EXPORT_FORMATS:
        raise ValueError(
            f"Argument `format` must be one of {EXPORT_FORMATS}. Received: format={format!r}"
        )
    if kwargs:
        raise TypeError(
            f"model.export got unexpected keyword arguments: {sorted(kwargs)}. "
            "Accepted: format, verbose, input_signature, jax2tf_kwargs."
        )
    import_tensorflow(export_ops(f"model.export(format={format!r})"))
    signature = signature_for_model(model, input_signature)
    archive = ExportArchive()
    archive.track_and_add_endpoint(
        "serve", model, input_signature=signature, jax2tf_kwargs=jax2tf_kwargs
    )
    archive.write_out(filepath, verbose=verbose)
    return archive
