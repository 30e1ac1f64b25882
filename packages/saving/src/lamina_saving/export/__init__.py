"""Export Lamina models for serving: TensorFlow SavedModels (`lamina.export` forwards here)."""

from lamina_saving.export.archive import ExportArchive as ExportArchive
from lamina_saving.export.model_export import export_model as export_model
from lamina_saving.export.specs import ExportSpec as ExportSpec

__all__ = ["ExportArchive", "ExportSpec", "export_model"]
