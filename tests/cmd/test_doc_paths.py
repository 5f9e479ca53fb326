"""The documents name only paths that exist. README.md, CONTRIBUTING.md
and docs/*.md point readers at files and folders of
this repository (`store/recovery`, `tests/e2e/`, `scripts/pg.sh`); a file
that moved or went away leaves a pointer to nothing, and this test names
the document, the line and the path.

What counts as a path: a word whose first component is a top-level folder
of the repository (`core/`, `tests/`, ...), inside backticks or bare in
the text, with at least one `/`. It exists when the path is a file or a
folder, or names a file pair by its stem (`core/master_core` for
`master_core.hpp` and `.cpp`); a C++ name after it (`::pause`) is dropped.
A placeholder (`<folder>`, `*`) matches any name. Build outputs (`build/`,
`build-asan/`) are not top-level folders of the repository, and URL paths
(`/api/v1/...`) start with `/`, so neither is taken for a path."""

import glob
import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

DOCS = [
    REPO / "README.md",
    REPO / "CONTRIBUTING.md",
    *sorted((REPO / "docs").glob("*.md")),
]

# Paths a document names on purpose that are not in the repository.
IGNORE = {
    "store/migrations/NNN_name.sql": "the naming pattern of a migration",
    "webui/node_modules": "what npm installs, not in git",
}

TOP = sorted(
    p.name
    for p in REPO.iterdir()
    if p.is_dir() and not p.name.startswith((".", "build")) and p.name != "node_modules"
)
SPAN = re.compile(r"`([^`]+)`")
BARE = re.compile(r"(?<![\w/.`$~-])((?:%s)/[\w./*<>{}-]*)" % "|".join(map(re.escape, TOP)))
FENCE = re.compile(r"^\s*```")


def exists(path):
    path = path.split("::")[0].rstrip(".")
    if re.search(r"[<*{]", path):
        pattern = re.sub(r"<[^>]*>|\{[^}]*\}", "*", path)
        return bool(glob.glob(str(REPO / pattern)))
    p = REPO / path
    return p.exists() or bool(glob.glob(glob.escape(str(p)) + ".*"))


def paths_in(doc):
    """(line, path) for every repository path the document names."""
    text = doc.read_text(encoding="utf-8")
    lines = text.splitlines()
    # Fenced blocks are read bare; backtick spans only outside them.
    prose = "\n".join("" if FENCE.match(l) else l for l in lines)
    found = []
    for m in SPAN.finditer(prose):
        line = prose.count("\n", 0, m.start()) + 1
        # A path broken at a line end after a '/' is one path.
        found += [(line, w) for w in re.sub(r"/\s*\n\s*", "/", m.group(1)).split()]
    bare = SPAN.sub(lambda m: " " * len(m.group(0).replace("\n", "")) + "\n" * m.group(0).count("\n"), prose)
    for n, l in enumerate(bare.split("\n"), 1):
        found += [(n, m.group(1)) for m in BARE.finditer(l)]
    out = []
    for n, word in found:
        word = word.strip("()[],;:'\"")
        if "/" in word and word.split("/")[0] in TOP:
            out.append((n, word))
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(REPO)))
def test_every_path_a_document_names_exists(doc):
    missing = [
        f"{doc.relative_to(REPO)}:{n}: {path}"
        for n, path in paths_in(doc)
        if path.split("::")[0].rstrip(".") not in IGNORE and not exists(path)
    ]
    assert not missing, "paths that do not exist:\n" + "\n".join(missing)


def test_the_checker_finds_a_stale_path(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text(
        "See `core/no_such_file.hpp` and store/gone/ and `state/\napply_nothing`;\n"
        "not `/api/v1/core/x`, `build/bin/det-master` or https://host/core/x.\n"
    )
    found = {p for _, p in paths_in(doc)}
    assert found == {"core/no_such_file.hpp", "store/gone/", "state/apply_nothing"}
    assert not any(exists(p) for p in found)
    assert exists("core/master_core") and exists("tests/<folder>/") and exists("state/apply_*.cpp")


def section(doc, heading):
    text = doc.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end >= 0 else len(text)]


def test_the_readme_layout_table_names_every_top_level_folder():
    table = section(REPO / "README.md", "## Layout")
    named = set(re.findall(r"`([\w-]+)/`", table))
    missing = sorted(set(TOP) - named)
    assert not missing, f"README.md's layout table leaves out: {', '.join(missing)}"


def test_the_design_names_every_folder_of_the_layer_check():
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_layers", REPO / "scripts" / "check-layers.py")
    layers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layers)
    design = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(?<![\w/])([a-z0-9_]+)/", design))
    missing = sorted(set(layers.ALLOWED) - named)
    assert not missing, f"docs/design.md's floors leave out: {', '.join(missing)}"
