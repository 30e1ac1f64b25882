"""The documentation's code runs: every `python` block of the guides (in order, in one
namespace per page), the README's example, and the docstrings' `>>>` examples."""

from __future__ import annotations

import doctest
import inspect
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
GUIDE = DOCS / "getting-started.md"

# Pages whose ```python blocks run. A block fenced ```py is highlighted the same but not
# run: only for code the test session cannot run (a GPU, a cluster), said so on the page.
# Pages that call `fit` run only on backends that train.
GUIDE_PAGES = {
    "guides/models.md": False,
    "guides/saving.md": False,
    "guides/recurrent-and-attention.md": True,
    "guides/preprocessing.md": True,
    "guides/performance.md": True,
    "guides/distribution.md": False,
}


def _can_train() -> bool:
    import lamina

    return lamina.backend.current().supports(lamina.backend.Capability.TRAINING)


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_getting_started_blocks_run(capsys):
    blocks = python_blocks(GUIDE.read_text())
    assert len(blocks) >= 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), namespace)
    assert "Total params" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype:UserWarning")
@pytest.mark.parametrize("page", sorted(GUIDE_PAGES))
def test_guide_blocks_run(page: str, tmp_path, monkeypatch):
    import lamina

    if GUIDE_PAGES[page] and not _can_train():
        pytest.skip(f"{page} trains models; this backend cannot")
    path = DOCS / page
    blocks = python_blocks(path.read_text())
    assert blocks, f"{page} has no python blocks"
    monkeypatch.chdir(tmp_path)
    lamina.utils.set_random_seed(0)
    namespace: dict = {"__name__": "__guide__"}
    for number, block in enumerate(blocks, start=1):  # a traceback names page and block
        exec(compile(block, f"{path} (python block {number})", "exec"), namespace)


def test_readme_example_runs(tmp_path, monkeypatch):
    if not _can_train():
        pytest.skip("the README's example trains a model; this backend cannot")
    readme = GUIDE.parent.parent / "README.md"
    blocks = python_blocks(readme.read_text())
    assert blocks
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(readme), "exec"), namespace)
    model, x, y = namespace["model"], namespace["x"], namespace["y"]
    accuracy = model.evaluate(x[1500:], y[1500:], verbose=0)[1]
    assert accuracy > 0.85
    assert (tmp_path / "digits.lamina").exists()


# The `>>>` examples of the public namespaces' docstrings, run as doctests. An example whose
# shown output is only a comment (`>>> ops.sum(x)  # 6.0`) must run without error; one that
# shows output below the prompt must print it (ellipsis and whitespace are forgiving).
NAMESPACES = [
    "lamina", "models", "layers", "activations", "initializers", "regularizers",
    "constraints", "losses", "metrics", "optimizers", "optimizers.schedules", "callbacks",
    "ops", "ops.core", "ops.math", "ops.nn", "ops.numpy", "ops.linalg", "ops.image",
    "random", "distribution", "saving", "export", "config", "backend", "dtype_policies",
    "mixed_precision", "tree", "utils", "wrappers", "testing", "datasets", "preprocessing",
    "visualization",
]  # fmt: skip


class CommentOutputChecker(doctest.OutputChecker):
    """Accepts any output where the example shows only a `# comment` (or nothing) for it."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        shown = [line for line in want.splitlines() if line.strip()]
        if all(line.lstrip().startswith("#") for line in shown):
            return True
        return super().check_output(want, got, optionflags)


def public_objects() -> dict[str, object]:
    """Every public object of the namespaces, once, named by its first public path."""
    import importlib

    found: dict[str, object] = {}
    seen: set[int] = set()
    for namespace in NAMESPACES:
        name = "lamina" if namespace == "lamina" else f"lamina.{namespace}"
        module = importlib.import_module(name)
        path = module.__name__
        if id(module) not in seen:
            seen.add(id(module))
            found[path] = module
        for name in getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]):
            try:
                obj = getattr(module, name)
            except ImportError:  # an optional dependency (scikit-learn) is absent
                continue
            if id(obj) in seen or inspect.ismodule(obj):
                continue
            seen.add(id(obj))
            found[f"{path}.{name}"] = obj
    return found


def docstring_examples() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(recurse=True, exclude_empty=True)
    tests: dict[tuple[str | None, int | None], doctest.DocTest] = {}
    for path, obj in public_objects().items():
        if not (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)):
            continue
        try:
            found = finder.find(obj, path)
        except ValueError:  # an object whose source cannot be located
            continue
        for test in found:
            if test.examples:
                tests.setdefault((test.filename, test.lineno), test)
    return sorted(tests.values(), key=lambda t: t.name)


# Examples that differentiate (`fit`, `jvp`): skipped on backends that cannot (NumPy).
TRAINS = {
    "lamina.ops.jvp",
    "lamina.wrappers.SKLearnClassifier",
    "lamina.wrappers.SKLearnRegressor",
    "lamina.wrappers.SKLearnTransformer",
}
# Examples written for some backends' own functions: skipped on the others. The nox
# integration session runs each on one of its backends.
ONE_BACKEND = {
    "lamina.export.ExportArchive": ("jax", "tensorflow"),
    "lamina.layers.FlaxLayer": ("jax",),
    "lamina.layers.JaxLayer": ("jax",),
    "lamina.layers.TFSMLayer": ("tensorflow",),
    "lamina.layers.TorchModuleWrapper": ("torch",),
}


def _marks(name: str) -> list[pytest.MarkDecorator]:
    import lamina

    if name in TRAINS and not _can_train():
        return [pytest.mark.skip(reason="differentiates; this backend cannot")]
    if name in ONE_BACKEND and lamina.config.backend() not in ONE_BACKEND[name]:
        return [pytest.mark.skip(reason=f"written for the {ONE_BACKEND[name]} backends")]
    return []


EXAMPLES = [pytest.param(test, id=test.name, marks=_marks(test.name))
            for test in docstring_examples()]


def test_examples_were_collected():
    assert len(EXAMPLES) > 100


# JAX without x64 narrows NumPy's default int64/float64/complex128 to 32 bits and says so;
# examples are written with NumPy's default dtypes.
@pytest.mark.filterwarnings("ignore:Explicitly requested dtype:UserWarning")
@pytest.mark.parametrize("test", EXAMPLES)
def test_docstring_example(test: doctest.DocTest, tmp_path, monkeypatch):
    import numpy as np

    import lamina

    monkeypatch.chdir(tmp_path)
    lamina.utils.set_random_seed(0)
    # The defining module's names (doctest's default), plus what every example may assume.
    test.globs.update({"lamina": lamina, "keras": lamina, "np": np, "ops": lamina.ops})
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(checker=CommentOutputChecker(), optionflags=flags)
    report: list[str] = []
    result = runner.run(test, out=report.append, clear_globs=False)
    assert not result.failed, "".join(report)
