"""Fetch pinned public data files, from the upstream URL or a local mirror.

The pinned list is the package resource ``resources/datasets.tsv`` (columns
``dataset, repo_path, bytes, sha256``). ``repo_path`` is
``<owner>/<repo>/<commit>/<path>``; the upstream URL is
``https://raw.githubusercontent.com/`` + ``repo_path`` (each segment
URL-quoted). A mirror is a local folder with the same layout (unquoted, real
spaces), chosen by the ``mirror`` argument or the ``MANYJUDGES_MIRROR``
environment variable.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import urllib.error
import urllib.parse
import urllib.request
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import IO

import pandas as pd

from manyjudges.core.atomic import atomic_file
from manyjudges.io.engine.errors import ChecksumError, DataError, DownloadError

__all__ = ["ChecksumError", "DataError", "DownloadError", "fetch", "pinned_table"]

_RAW_BASE_URL = "https://raw.githubusercontent.com/"
_MIRROR_ENV = "MANYJUDGES_MIRROR"
_CHUNK = 1 << 20
_MIRROR_HINT = (
    "no network? point the pipeline at a local mirror laid out like "
    "<owner>/<repo>/<commit>/<path>: `snakemake --config mirror=/path/to/mirror` "
    f"or `export {_MIRROR_ENV}=/path/to/mirror`"
)


@lru_cache(maxsize=1)
def _read_pinned_table() -> pd.DataFrame:
    """Return the pinned list as parsed from the package resource (cached: read once per process).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, repo_path`` (str), ``bytes`` (int64), ``sha256`` (str).
    """
    resource = resources.files("manyjudges").joinpath("resources", "datasets.tsv")
    with resource.open("r", encoding="utf-8") as handle:
        table = pd.read_csv(
            handle,
            sep="\t",
            dtype={"dataset": str, "repo_path": str, "sha256": str},
            keep_default_na=False,
        )
    return table.astype({"bytes": "int64"})


def pinned_table() -> pd.DataFrame:
    """Return the whole pinned list: one row per file of every dataset.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, repo_path`` (str), ``bytes`` (int64), ``sha256`` (str).
    """
    return _read_pinned_table().copy()


def _pinned_files(dataset: str) -> pd.DataFrame:
    """Return the pinned files of one dataset.

    Parameters
    ----------
    dataset : str
        A dataset key of ``resources/datasets.tsv``, e.g. ``"skate"``.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, repo_path, bytes, sha256``, in the resource's order.

    Raises
    ------
    ValueError
        If ``dataset`` is unknown; the message lists the known datasets.
    """
    table = pinned_table()
    rows = table[table["dataset"] == dataset].reset_index(drop=True)
    if rows.empty:
        known = ", ".join(sorted(table["dataset"].unique()))
        raise ValueError(f"unknown dataset {dataset!r}; known datasets: {known}")
    return rows


def _raw_filename(repo_path: str) -> str:
    """Return the local file name of a pinned file: the basename of ``repo_path``.

    Examples
    --------
    >>> raw_filename("fleverest/PrefLib-Data/abc/datasets/00006 - skate/00006-00000001.toc")
    '00006-00000001.toc'
    """
    return PurePosixPath(repo_path).name


def _upstream_url(repo_path: str) -> str:
    """Return the raw.githubusercontent.com URL of a pinned file, each segment quoted.

    Examples
    --------
    >>> upstream_url("o/r/c/datasets/00006 - skate/a.toc")
    'https://raw.githubusercontent.com/o/r/c/datasets/00006%20-%20skate/a.toc'
    """
    return _RAW_BASE_URL + "/".join(
        urllib.parse.quote(segment, safe="") for segment in repo_path.split("/")
    )


def _mirror_path(repo_path: str, mirror: str | os.PathLike[str]) -> Path:
    """Where a pinned file lies in a mirror root (unquoted, real spaces)."""
    return Path(mirror).joinpath(*repo_path.split("/"))


def _resolve_mirror(mirror: str | os.PathLike[str] | None) -> Path | None:
    """Return the argument if given, else ``$MANYJUDGES_MIRROR`` if set and non-empty."""
    if mirror is not None and os.fspath(mirror) != "":
        return Path(mirror)
    from_env = os.environ.get(_MIRROR_ENV, "")
    return Path(from_env) if from_env else None


def _copy_from_mirror(source: Path, out: IO[bytes]) -> None:
    """Copy a mirror file to the open file ``out``, or raise DownloadError if it is missing."""
    if not source.is_file():
        raise DownloadError(
            f"mirror file not found: {source} (the mirror must be laid out like "
            "<owner>/<repo>/<commit>/<path>)"
        )
    with open(source, "rb") as handle:
        shutil.copyfileobj(handle, out, _CHUNK)


def _download(url: str, out: IO[bytes], timeout: float) -> None:
    """Stream ``url`` into the open file ``out``, or raise DownloadError on a network failure."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            shutil.copyfileobj(response, out, _CHUNK)
    except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as err:
        raise DownloadError(f"could not download {url}: {err}; {_MIRROR_HINT}") from err


def _sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch(
    repo_path: str,
    sha256: str,
    dest: str | os.PathLike[str],
    mirror: str | os.PathLike[str] | None = None,
    timeout: float = 60,
) -> Path:
    """Fetch one pinned file to ``dest`` and verify its sha256.

    The file is written to a temporary file beside ``dest``, checked, and
    only then moved to ``dest`` with ``os.replace``: ``dest`` is never left
    half-written or with the wrong content.

    Parameters
    ----------
    repo_path : str
        ``<owner>/<repo>/<commit>/<path>`` as in ``resources/datasets.tsv``.
    sha256 : str
        Expected hex digest.
    dest : path-like
        Destination file; parent directories are created if needed.
    mirror : path-like, optional
        Mirror root to copy from instead of the network. Defaults to
        ``$MANYJUDGES_MIRROR``; the argument wins over the variable.
    timeout : float
        Network timeout in seconds.

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    ChecksumError
        If the fetched bytes do not have the expected sha256 (nothing is
        written to ``dest``).
    DownloadError
        If the URL cannot be reached (the message says how to use a mirror)
        or the mirror lacks the file.
    """
    dest = Path(dest)
    root = _resolve_mirror(mirror)
    source = str(_mirror_path(repo_path, root)) if root is not None else _upstream_url(repo_path)
    with atomic_file(dest, "wb") as out:
        if root is not None:
            _copy_from_mirror(_mirror_path(repo_path, root), out)
        else:
            _download(source, out, timeout)
        out.flush()
        actual = _sha256(Path(out.name))
        if actual != sha256.strip().lower():
            raise ChecksumError(
                f"{dest.name}: sha256 mismatch for {source}: expected {sha256}, "
                f"got {actual}"
            )
    return dest
