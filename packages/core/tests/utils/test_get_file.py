"""get_file from file:// origins (no network): caching, hashes, extraction, and archives
with members that would land outside the folder refused."""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from lamina import utils
from lamina.utils.archives import extract_archive


def _url(path: Path) -> str:
    return path.resolve().as_uri()


def _tar(path: Path, members: list[tarfile.TarInfo], data: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info in members:
            payload = data.get(info.name)
            if payload is not None:
                info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload) if payload is not None else None)
    return path


def _file(name: str) -> tarfile.TarInfo:
    return tarfile.TarInfo(name)


def _link(name: str, target: str, hard: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.LNKTYPE if hard else tarfile.SYMTYPE
    info.linkname = target
    return info


def test_download_cache_and_hashes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "src" / "data.bin"
    source.parent.mkdir()
    source.write_bytes(b"lamina" * 100)
    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    md5 = hashlib.md5(source.read_bytes()).hexdigest()
    cache = tmp_path / "cache"
    path = utils.get_file(origin=_url(source), file_hash=sha, cache_dir=cache)
    assert path == str(cache / "datasets" / "data.bin")
    assert Path(path).read_bytes() == source.read_bytes()
    assert "Downloading data from" in capsys.readouterr().out
    # Cached: no second download, even when the origin is gone.
    source.unlink()
    assert utils.get_file("data.bin", _url(source), md5_hash=md5, cache_dir=cache) == path
    assert "Downloading" not in capsys.readouterr().out
    with pytest.raises(OSError, match="URL fetch failure"):
        utils.get_file(origin=_url(source), cache_dir=cache, force_download=True)


def test_hash_mismatch_is_refused_and_deleted(tmp_path: Path) -> None:
    source = tmp_path / "x.txt"
    source.write_text("hello")
    cache = tmp_path / "cache"
    with pytest.raises(ValueError, match="corrupted"):
        utils.get_file(origin=_url(source), file_hash="0" * 64, cache_dir=cache)
    assert not (cache / "datasets" / "x.txt").exists()
    # A stale cached file whose hash does not match is downloaded again.
    stale = cache / "datasets" / "x.txt"
    stale.write_text("stale")
    good = hashlib.sha256(b"hello").hexdigest()
    path = utils.get_file(
        origin=_url(source), file_hash=good, cache_dir=cache, hash_algorithm="sha256"
    )
    assert Path(path).read_text() == "hello"


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="origin"):
        utils.get_file("a.txt")
    with pytest.raises(ValueError, match="fname"):
        utils.get_file(os.path.join("sub", "a.txt"), origin="file:///x", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="hash_algorithm"):
        utils.get_file(origin="file:///x/a", cache_dir=tmp_path, hash_algorithm="sha1")
    with pytest.raises(ValueError, match="archive_format"):
        extract_archive(str(tmp_path), str(tmp_path / "o"), "rar")


def test_extract_tar_and_zip(tmp_path: Path) -> None:
    archive = _tar(
        tmp_path / "pack.tar.gz",
        [_file("pack/a.txt"), _link("pack/l", "a.txt")],
        {"pack/a.txt": b"A"},
    )
    folder = utils.get_file("pack.tar.gz", _url(archive), extract=True, cache_dir=tmp_path / "c")
    assert folder == str(tmp_path / "c" / "datasets" / "pack_extracted")
    assert (Path(folder) / "pack" / "a.txt").read_bytes() == b"A"
    assert (Path(folder) / "pack" / "l").read_bytes() == b"A"
    zpath = tmp_path / "z.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("dir/b.txt", "B")
    folder = utils.get_file(origin=_url(zpath), extract=True, cache_dir=tmp_path / "c")
    assert folder == str(tmp_path / "c" / "datasets" / "z.zip")
    assert (Path(folder) / "dir" / "b.txt").read_text() == "B"
    untarred = utils.get_file("old", _url(archive), untar=True, cache_dir=tmp_path / "c")
    assert (Path(untarred) / "pack" / "a.txt").exists()
    plain = tmp_path / "plain.txt"
    plain.write_text("not an archive")
    with pytest.warns(UserWarning, match="nothing was extracted"):
        utils.get_file(origin=_url(plain), extract=True, cache_dir=tmp_path / "c")


@pytest.mark.parametrize(
    ("members", "why"),
    [
        ([_file("../evil.txt")], "climbs out"),
        ([_file("ok/../../evil.txt")], "climbs out"),
        ([_file("/tmp/evil.txt")], "absolute"),
        ([_link("l", "/etc/passwd")], "absolute"),
        ([_link("l", "../../outside")], "outside"),
        ([_link("d", "."), _link("d/e", "../..")], "outside"),
        ([_link("h", "../outside.txt", hard=True)], "climbs out"),
        ([_link("up", ".."), _file("up/evil.txt")], "outside"),
    ],
)
def test_tar_members_escaping_are_refused(tmp_path: Path, members: list, why: str) -> None:
    archive = _tar(tmp_path / "bad.tar.gz", members, {m.name: b"x" for m in members if m.isfile()})
    with pytest.raises(ValueError, match=why):
        utils.get_file("bad.tar.gz", _url(archive), extract=True, cache_dir=tmp_path / "c")
    assert not (tmp_path / "c" / "datasets" / "bad_extracted").exists()
    assert not (tmp_path / "c" / "evil.txt").exists()


def test_zip_members_escaping_are_refused(tmp_path: Path) -> None:
    for name, why in (("../evil.txt", "climbs out"), ("/abs.txt", "absolute")):
        zpath = tmp_path / "bad.zip"
        with zipfile.ZipFile(zpath, "w") as zf:
            zf.writestr(zipfile.ZipInfo(name), "x")
        with pytest.raises(ValueError, match=why):
            extract_archive(str(zpath), str(tmp_path / "out"))
        assert not (tmp_path / "out").exists()
    link = zipfile.ZipInfo("link")
    link.external_attr = 0o120777 << 16
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr(link, "../../etc/passwd")
    with pytest.raises(ValueError, match="outside"):
        extract_archive(str(zpath), str(tmp_path / "out"))
