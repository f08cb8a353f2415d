"""Workspace discovery and path rules: every bad input is skipped or refused, and says why.

Spec §1.2–§1.3 and cases 65–67 (§15), with memdir's deliberate differences: symlinks that stay
inside the workspace are followed (once), ``.MD``/``.markdown`` count as Markdown, and problems
are reported instead of being dropped silently.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from memdir import Memory
from memdir.config import load_config
from memdir.errors import PathError
from memdir.workspace import Workspace

WriteFile = Callable[..., Path]


pytestmark = pytest.mark.usefixtures("no_embedder")


def _ws(root: Path, **overrides: Any) -> Workspace:
    return Workspace(load_config(root, overrides=overrides))


def _paths(ws: Workspace) -> list[str]:
    return sorted(f.path for f in ws.discover().files)


def _problems(report_problems: Any) -> dict[str, str]:
    return {p.path: p.kind for p in report_problems}


def _hits(mem: Memory, query: str) -> list[str]:
    return sorted({h.path for h in mem.search(query, min_score=0.0, max_results=50)})


def _open(root: Path, overrides: Mapping[str, Any] | None = None) -> Memory:
    return Memory(root, overrides=overrides)


# -- discovery -------------------------------------------------------------------------------


def test_discovers_root_files_memory_tree_and_nothing_else(
    tmp_path: Path, write: WriteFile
) -> None:
    write(tmp_path, "MEMORY.md", "a")
    write(tmp_path, "memory.md", "b")
    write(tmp_path, "README.md", "not memory")
    write(tmp_path, "other/notes.md", "not memory either")
    write(tmp_path, "memory/2026-01-01.md", "c")
    write(tmp_path, "memory/deep/er/x.md", "d")
    write(tmp_path, "memory/.dreams/y.md", "hidden folders are memory too")
    assert _paths(_ws(tmp_path)) == [
        "MEMORY.md",
        "memory.md",
        "memory/.dreams/y.md",
        "memory/2026-01-01.md",
        "memory/deep/er/x.md",
    ]


def test_markdown_extensions_any_case_and_txt_ignored(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/a.MD", "upper")
    write(tmp_path, "memory/b.markdown", "long")
    write(tmp_path, "memory/c.Markdown", "mixed")
    write(tmp_path, "memory/d.txt", "text")
    write(tmp_path, "memory/e.md.bak", "backup")
    write(tmp_path, "memory/f.json", "{}")
    assert _paths(_ws(tmp_path)) == ["memory/a.MD", "memory/b.markdown", "memory/c.Markdown"]


@pytest.mark.parametrize("folder", [".git", "node_modules", ".venv", "__pycache__", ".memdir"])
def test_ignored_folders_are_not_walked(tmp_path: Path, write: WriteFile, folder: str) -> None:
    write(tmp_path, f"memory/{folder}/x.md", "ignoredword")
    write(tmp_path, f"memory/sub/{folder}/y.md", "ignoredword")
    write(tmp_path, "memory/kept.md", "keptword")
    assert _paths(_ws(tmp_path)) == ["memory/kept.md"]


def test_non_utf8_is_indexed_with_replacement_and_reported(
    tmp_path: Path, write: WriteFile
) -> None:
    write(tmp_path, "memory/latin1.md", b"caf\xe9 latinword and \xff\xfe more\n")
    write(tmp_path, "memory/bom.md", b"\xef\xbb\xbfbomword\n")
    with _open(tmp_path) as mem:
        report = mem.sync()
        assert report.files_indexed == 2
        problems = [p for p in report.problems if p.path == "memory/latin1.md"]
        assert len(problems) == 1
        assert problems[0].kind == "bad-utf8"
        assert "U+FFFD" in problems[0].message
        assert "memory/latin1.md" in str(problems[0])
        hit = mem.search("latinword", min_score=0.0)[0]
        assert hit.path == "memory/latin1.md"
        assert "caf\ufffd latinword" in hit.snippet
        assert mem.search("bomword", min_score=0.0)[0].snippet.startswith("bomword")
        assert "memory/bom.md" not in _problems(report.problems)
        # The problem stays visible in status until the file is fixed.
        assert {"path": "memory/latin1.md", "kind": "bad-utf8"}.items() <= mem.status()["problems"][
            0
        ].items()
        write(tmp_path, "memory/latin1.md", "café latinword fixed\n")
        assert mem.sync().problems == []
        assert mem.status()["problems"] == []


def test_binary_file_is_skipped_with_a_warning_and_the_rest_indexed(
    tmp_path: Path, write: WriteFile, caplog: pytest.LogCaptureFixture
) -> None:
    write(tmp_path, "memory/blob.md", b"binaryword\x00\x01\x02\x03")
    write(tmp_path, "memory/fine.md", "fineword\n")
    with _open(tmp_path) as mem:
        report = mem.sync()
        assert _problems(report.problems) == {"memory/blob.md": "binary"}
        assert report.files_indexed == 1
        assert _hits(mem, "binaryword") == []
        assert _hits(mem, "fineword") == ["memory/fine.md"]
    assert any("memory/blob.md" in r.getMessage() for r in caplog.records)


def test_file_that_becomes_binary_loses_its_old_rows(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/x.md", "formerword\n")
    with _open(tmp_path) as mem:
        assert _hits(mem, "formerword") == ["memory/x.md"]
        write(tmp_path, "memory/x.md", b"formerword\x00\x00")
        assert _hits(mem, "formerword") == []


def test_oversized_file_is_skipped_naming_the_limit(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/huge.md", "hugeword " * 100)
    write(tmp_path, "memory/small.md", "smallword\n")
    with _open(tmp_path, {"limits.max_file_bytes": 500}) as mem:
        report = mem.sync()
        problem = next(p for p in report.problems if p.path == "memory/huge.md")
        assert problem.kind == "too-large"
        assert "900 bytes" in problem.message
        assert "limits.max_file_bytes=500" in problem.message
        assert _hits(mem, "hugeword") == []
        assert _hits(mem, "smallword") == ["memory/small.md"]


def test_symlinked_file_and_folder_outside_are_refused(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    write(outside, "secret.md", "secretfileword\n")
    write(outside, "dir/s.md", "secretdirword\n")
    write(ws, "MEMORY.md", "rootword\n")
    (ws / "memory").mkdir()
    os.symlink(outside / "secret.md", ws / "memory" / "link.md")
    os.symlink(outside / "dir", ws / "memory" / "linkdir")
    os.symlink(outside / "secret.md", ws / "memory.md")
    with _open(ws) as mem:
        report = mem.sync()
        assert _problems(report.problems) == {
            "memory/link.md": "symlink-escape",
            "memory/linkdir": "symlink-escape",
            "memory.md": "symlink-escape",
        }
        assert all("leaves the workspace" in p.message for p in report.problems)
        assert _hits(mem, "secretfileword") == []
        assert _hits(mem, "secretdirword") == []
        assert _hits(mem, "rootword") == ["MEMORY.md"]
        assert sorted(mem.index.file_rows()) == ["MEMORY.md"]


def test_symlinked_memory_folder_outside_is_refused(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    write(tmp_path, "outside/m.md", "escapeword\n")
    ws.mkdir()
    os.symlink(tmp_path / "outside", ws / "memory")
    workspace = _ws(ws)
    found = workspace.discover()
    assert found.files == []
    assert _problems(found.problems) == {"memory": "symlink-escape"}


def test_symlink_that_stays_inside_is_followed_once(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "MEMORY.md", "insideword\n")
    write(tmp_path, "memory/real/a.md", "realdirword\n")
    os.symlink("../MEMORY.md", tmp_path / "memory" / "alias.md")
    os.symlink("real", tmp_path / "memory" / "alias-dir")
    os.symlink("real/a.md", tmp_path / "memory" / "z-alias.md")
    with _open(tmp_path) as mem:
        report = mem.sync()
        assert report.problems == []
        assert report.files_total == 2
        assert _hits(mem, "insideword") == ["MEMORY.md"]
        assert len(mem.search("realdirword", min_score=0.0)) == 1


def test_broken_symlink_is_reported(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "MEMORY.md", "x")
    os.symlink(tmp_path / "gone.md", tmp_path / "memory.md")
    found = _ws(tmp_path).discover()
    assert [f.path for f in found.files] == ["MEMORY.md"]
    assert _problems(found.problems) == {"memory.md": "broken-symlink"}


def test_symlink_loop_inside_memory_terminates(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/a/x.md", "loopword\n")
    os.symlink("..", tmp_path / "memory" / "a" / "up")
    assert _paths(_ws(tmp_path)) == ["memory/a/x.md"]


def test_missing_extra_path_is_reported(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "MEMORY.md", "present\n")
    with _open(tmp_path, {"extra_paths": ["no-such-folder", "gone.md"]}) as mem:
        report = mem.sync()
        assert _problems(report.problems) == {"no-such-folder": "missing", "gone.md": "missing"}
        assert report.files_indexed == 1


def test_extra_path_file_and_folder_inside_and_outside(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "root\n")
    write(ws, "docs/guide.md", "relativefolderword\n")
    write(ws, "docs/skip.txt", "txtword\n")
    write(ws, "single.md", "relativefileword\n")
    write(tmp_path, "team/shared.md", "outsidefolderword\n")
    write(tmp_path, "team/sub/deeper.markdown", "outsidedeepword\n")
    write(tmp_path, "lone.md", "outsidefileword\n")
    write(tmp_path, "lone.txt", "notmarkdown\n")
    extra = ["docs", "single.md", str(tmp_path / "team"), "../lone.md", "../lone.txt"]
    with _open(ws, {"extra_paths": extra}) as mem:
        report = mem.sync()
        assert _problems(report.problems) == {"../lone.txt": "not-markdown"}
        assert sorted(mem.index.file_rows()) == [
            "../lone.md",
            "../team/shared.md",
            "../team/sub/deeper.markdown",
            "MEMORY.md",
            "docs/guide.md",
            "single.md",
        ]
        assert _hits(mem, "relativefolderword") == ["docs/guide.md"]
        assert _hits(mem, "relativefileword") == ["single.md"]
        assert _hits(mem, "outsidefolderword") == ["../team/shared.md"]
        assert _hits(mem, "outsidedeepword") == ["../team/sub/deeper.markdown"]
        assert _hits(mem, "outsidefileword") == ["../lone.md"]
        assert _hits(mem, "txtword") == []
        # Extra-path files can be read back with the path search returned.
        assert mem.get("docs/guide.md").text == "relativefolderword"


def test_symlink_out_of_an_extra_folder_is_refused(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "x\n")
    write(tmp_path, "team/ok.md", "teamword\n")
    write(tmp_path, "private/p.md", "privateword\n")
    os.symlink(tmp_path / "private" / "p.md", tmp_path / "team" / "p.md")
    with _open(ws, {"extra_paths": [str(tmp_path / "team")]}) as mem:
        report = mem.sync()
        assert _problems(report.problems) == {"../team/p.md": "symlink-escape"}
        assert _hits(mem, "teamword") == ["../team/ok.md"]
        assert _hits(mem, "privateword") == []


def test_unreadable_file_is_skipped_and_reported(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/locked.md", "lockedword\n")
    write(tmp_path, "memory/open.md", "openword\n")
    (tmp_path / "memory" / "locked.md").chmod(0)
    try:
        with _open(tmp_path) as mem:
            report = mem.sync()
            assert _hits(mem, "openword") == ["memory/open.md"]
            if os.geteuid() != 0:  # root reads mode-000 files, so there is nothing to refuse
                assert _problems(report.problems) == {"memory/locked.md": "unreadable"}
                assert _hits(mem, "lockedword") == []
            else:
                assert _hits(mem, "lockedword") == ["memory/locked.md"]
    finally:
        (tmp_path / "memory" / "locked.md").chmod(0o644)


def test_case_65_extra_paths_are_trimmed_and_deduplicated(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    absolute = str(tmp_path / "abs")
    cfg = load_config(ws, overrides={"extra_paths": [" notes ", "./notes", absolute, absolute, ""]})
    assert list(Workspace(cfg).extra_paths) == [ws.resolve() / "notes", Path(absolute)]


def test_case_66_list_memory_files(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "m")
    write(ws, "extra/note1.md", "1")
    write(ws, "extra/note2.md", "2")
    write(ws, "extra/ignore.txt", "t")
    write(ws, "subdir/only.md", "s")
    write(ws, "single.md", "f")
    assert len(_ws(ws, extra_paths=["extra"]).discover().files) == 3
    assert len(_ws(ws, extra_paths=["single.md"]).discover().files) == 2
    assert len(_ws(ws, extra_paths=["subdir"]).discover().files) == 2
    assert len(_ws(ws, extra_paths=["does-not-exist"]).discover().files) == 1
    # The workspace itself, "." and MEMORY.md again: MEMORY.md only once (plus the rest).
    found = _ws(ws, extra_paths=[str(ws), ".", str(ws / "MEMORY.md")]).discover().files
    assert [f.path for f in found].count("MEMORY.md") == 1
    assert len({os.path.realpath(f.abs_path) for f in found}) == len(found)


def test_case_66_symlinked_file_and_dir_are_excluded(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "m")
    write(tmp_path, "elsewhere/f.md", "f")
    write(tmp_path, "elsewhere/d/g.md", "g")
    (ws / "memory").mkdir()
    os.symlink(tmp_path / "elsewhere" / "f.md", ws / "memory" / "f.md")
    os.symlink(tmp_path / "elsewhere" / "d", ws / "memory" / "d")
    assert _paths(_ws(ws)) == ["MEMORY.md"]


def test_case_67_dreams_md_is_readable_but_not_indexed(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "DREAMS.md", "dreamword\n")
    workspace = _ws(tmp_path)
    assert workspace.resolve_readable("DREAMS.md") == ("DREAMS.md", tmp_path / "DREAMS.md")
    assert _paths(workspace) == []
    with _open(tmp_path) as mem:
        assert _hits(mem, "dreamword") == []
        assert mem.get("DREAMS.md").text == "dreamword"


# -- resolve_readable --------------------------------------------------------------------------


@pytest.fixture
def readable(tmp_path: Path, write: WriteFile) -> Workspace:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "m\n")
    write(ws, "memory/a.md", "a\n")
    write(ws, "memory/notes.txt", "t\n")
    write(ws, "README.md", "r\n")
    write(tmp_path, "outside/sub/x.md", "x\n")
    os.symlink(tmp_path / "outside", ws / "memory" / "out")
    os.symlink(tmp_path / "outside" / "sub" / "x.md", ws / "memory" / "leak.md")
    return _ws(ws)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("./", "empty"),
        ("memory/a\x00.md", "nul-byte"),
        ("/etc/passwd.md", "absolute"),
        ("~/x.md", "absolute"),
        ("C:/x.md", "absolute"),
        ("memory/../MEMORY.md", "traversal"),
        ("../ws/MEMORY.md", "traversal"),
        ("memory\\a.md", "backslash"),
        ("memory/%2e%2e/MEMORY.md", "encoded"),
        ("memory%2Fa.md", "encoded"),
        ("README.md", "not-memory"),
        ("notes/x.md", "not-memory"),
        ("memory/notes.txt", "not-markdown"),
        ("memory/out/sub/x.md", "symlink-escape"),
        ("memory/leak.md", "symlink-escape"),
        ("memory/missing.md", "missing"),
        ("x" * 2000, "too-long"),
    ],
)
def test_resolve_readable_refusals(readable: Workspace, raw: str, code: str) -> None:
    with pytest.raises(PathError) as info:
        readable.resolve_readable(raw)
    assert info.value.code == code
    assert info.value.exit_code == 4
    assert "\x00" not in info.value.path


def test_resolve_readable_accepts_memory_paths(readable: Workspace) -> None:
    root = readable.root
    assert readable.resolve_readable("MEMORY.md") == ("MEMORY.md", root / "MEMORY.md")
    assert readable.resolve_readable("./memory//a.md") == ("memory/a.md", root / "memory/a.md")
    assert readable.resolve_readable(" memory/a.md ") == ("memory/a.md", root / "memory/a.md")


def test_resolve_readable_folder_is_not_a_file(readable: Workspace) -> None:
    (readable.root / "memory" / "dir.md").mkdir()
    with pytest.raises(PathError) as info:
        readable.resolve_readable("memory/dir.md")
    assert info.value.code == "not-file"


# -- one rule for discovery and get (issue #9) -------------------------------------------------


def test_a_file_name_that_is_not_utf8_is_skipped_and_reported(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "fine.md").write_text("fineword\n")
    with open(os.fsencode(tmp_path / "memory") + b"/bad\xff.md", "wb") as fh:
        fh.write(b"badnameword\n")
    with _open(tmp_path) as mem:
        report = mem.sync()
        assert _problems(report.problems) == {"memory/bad\\xff.md": "bad-name"}
        assert "not valid UTF-8" in report.problems[0].message
        assert _hits(mem, "fineword") == ["memory/fine.md"]
        assert _hits(mem, "badnameword") == []
        assert [p["path"] for p in mem.status()["problems"]] == ["memory/bad\\xff.md"]


def test_bad_utf8_content_stays_in_status_while_the_file_is_unchanged(
    tmp_path: Path, write: WriteFile
) -> None:
    path = write(tmp_path, "memory/latin1.md", b"caf\xe9 latinword\n")
    os.utime(path, (1_700_000_000, 1_700_000_000))  # old enough to be trusted by size + mtime
    with _open(tmp_path) as mem:
        assert _problems(mem.sync().problems) == {"memory/latin1.md": "bad-utf8"}
        assert mem.sync().files_unchanged == 1
        assert [p["kind"] for p in mem.status()["problems"]] == ["bad-utf8"]


def test_a_link_to_a_file_that_is_not_memory_is_neither_indexed_nor_read(
    tmp_path: Path, write: WriteFile
) -> None:
    write(tmp_path, ".env", "API_KEY=envsecretword\n")
    write(tmp_path, ".memdir/config.toml", "# configsecretword\n")
    write(tmp_path, "README.md", "readmeword\n")
    write(tmp_path, "memory/real.md", "realword\n")
    os.symlink("../.env", tmp_path / "memory" / "env.md")
    os.symlink("../.memdir/config.toml", tmp_path / "memory" / "config.md")
    os.symlink("..", tmp_path / "memory" / "top")  # a folder link: top/README.md is not memory
    os.symlink("real.md", tmp_path / "memory" / "z-alias.md")  # to a memory file: fine
    with _open(tmp_path) as mem:
        report = mem.sync()
        assert _problems(report.problems) == {
            "memory/env.md": "symlink-not-memory",
            "memory/config.md": "symlink-not-memory",
            "memory/top": "symlink-not-memory",
        }
        assert sorted(mem.index.file_rows()) == ["memory/real.md"]
        assert _hits(mem, "envsecretword") == _hits(mem, "configsecretword") == []
        for path in ("memory/env.md", "memory/config.md", "memory/top/README.md"):
            with pytest.raises(PathError) as info:
                mem.get(path)
            assert info.value.code == "symlink-not-memory", path
            assert "not a memory file" in info.value.message
        assert mem.get("memory/z-alias.md").text == "realword"


def test_a_hard_linked_file_is_refused_unless_allowed(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    secret = write(tmp_path, "outside/secret.md", "hardlinkword\n")
    write(ws, "memory/fine.md", "fineword\n")
    os.link(secret, ws / "memory" / "linked.md")
    with _open(ws) as mem:
        report = mem.sync()
        assert _problems(report.problems) == {"memory/linked.md": "hardlink"}
        assert "limits.allow_hardlinks" in report.problems[0].message
        assert _hits(mem, "hardlinkword") == []
        with pytest.raises(PathError) as info:
            mem.get("memory/linked.md")
        assert info.value.code == "hardlink"
        assert "2 hard links" in info.value.message
    with _open(ws, {"limits.allow_hardlinks": True}) as mem:
        assert mem.sync().problems == []
        assert _hits(mem, "hardlinkword") == ["memory/linked.md"]
        assert mem.get("memory/linked.md").text == "hardlinkword"


def test_get_refuses_a_binary_file_as_discovery_skips_it(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/blob.md", b"binaryword\x00\x01\x02\n")
    with _open(tmp_path) as mem:
        assert _problems(mem.sync().problems) == {"memory/blob.md": "binary"}
        with pytest.raises(PathError) as info:
            mem.get("memory/blob.md")
        assert info.value.code == "binary"
        assert "memory/blob.md" in info.value.message and "binary" in info.value.message


def test_a_backslash_in_a_file_name_is_read_back_as_search_returned_it(
    tmp_path: Path, write: WriteFile
) -> None:
    write(tmp_path, "memory/a\\b.md", "backslashword\n")
    with _open(tmp_path) as mem:
        assert _hits(mem, "backslashword") == ["memory/a\\b.md"]
        assert mem.get("memory/a\\b.md").text == "backslashword"
        for windows_like in ("memory\\a\\b.md", "memory/x\\..\\a\\b.md"):
            with pytest.raises(PathError) as info:
                mem.get(windows_like)
            assert info.value.code == "backslash"


@pytest.mark.parametrize(
    "name",
    [
        "a\\b.md",  # kept: a backslash is a name character on POSIX
        "x\\..\\y.md",  # skipped: reads as a traversal on Windows
        "50\u2215day.md",  # skipped: a look-alike slash
        " leading space.md",  # kept: only the ends of the whole path are stripped
        "100%2fday.md",  # skipped: an encoded separator
        "#L3.md",  # kept
        "note:3.md",  # kept
    ],
)
def test_every_path_search_can_return_can_be_read_back(
    tmp_path: Path, write: WriteFile, name: str
) -> None:
    write(tmp_path, f"memory/sub/{name}", "oddnameword\n")
    with _open(tmp_path) as mem:
        report = mem.sync()
        indexed = list(mem.index.file_rows())
        assert len(indexed) + len(report.problems) == 1
        for path in indexed:
            assert mem.get(path).text == "oddnameword"
        for problem in report.problems:
            assert problem.kind == "bad-name"
            with pytest.raises(PathError):
                mem.get(problem.path)


def test_get_reads_no_file_discovery_skips_by_its_folder(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/node_modules/pkg/README.md", "vendoredword\n")
    write(tmp_path, "memory/.git/notes.md", "gitword\n")
    with _open(tmp_path) as mem:
        assert _hits(mem, "vendoredword") == _hits(mem, "gitword") == []
        for path in ("memory/node_modules/pkg/README.md", "memory/.git/notes.md"):
            with pytest.raises(PathError) as info:
                mem.get(path)
            assert info.value.code == "not-memory"


def test_the_watchers_path_sync_applies_the_same_rules(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/fine.md", "fineword\n")
    outside = write(tmp_path.parent / f"{tmp_path.name}-out", "secret.md", "linkedword\n")
    with _open(tmp_path) as mem:
        mem.sync()
        bad = os.fsencode(tmp_path / "memory") + b"/bad\xfe.md"
        with open(bad, "wb") as fh:
            fh.write(b"badnameword\n")
        os.link(outside, tmp_path / "memory" / "linked.md")
        report = mem.sync(paths=[os.fsdecode(bad), str(tmp_path / "memory" / "linked.md")])
        assert _problems(report.problems) == {
            "memory/bad\\xfe.md": "bad-name",
            "memory/linked.md": "hardlink",
        }
        assert sorted(mem.index.file_rows()) == ["memory/fine.md"]
        assert _hits(mem, "linkedword") == _hits(mem, "badnameword") == []


def test_an_extra_path_too_long_for_the_system_is_reported_missing(tmp_path: Path) -> None:
    workspace = _ws(tmp_path, extra_paths=["x" * 5000])
    assert workspace.allowed_roots()[0] == tmp_path.resolve()
    found = workspace.discover()
    assert [p.kind for p in found.problems] == ["missing"]


def test_a_memory_folder_linked_inside_the_workspace_is_memory(
    tmp_path: Path, write: WriteFile
) -> None:
    write(tmp_path, "notes/x.md", "linkedfolderword\n")
    os.symlink("notes", tmp_path / "memory")
    with _open(tmp_path) as mem:
        assert mem.sync().problems == []
        assert _hits(mem, "linkedfolderword") == ["memory/x.md"]
        assert mem.get("memory/x.md").text == "linkedfolderword"
        with pytest.raises(PathError) as info:
            mem.get("notes/x.md")  # by its own name it is not memory
        assert info.value.code == "not-memory"


def test_the_folder_memo_answers_as_the_per_file_rule(tmp_path: Path) -> None:
    # _kind asks whether a file's folder is in a memory tree once per folder; the answer must
    # be the one the lexical rule gives for the file itself, whatever shape the path has.
    (tmp_path / "memory").mkdir()
    extra = tmp_path / "team"
    extra.mkdir()
    ws = _ws(tmp_path, extra_paths=[str(extra)])
    roots = ws._real_roots()
    root = str(ws.real_root)
    names = [
        "MEMORY.md",
        "memory/a.md",
        "memory/sub/deep/b.md",
        "memory/node_modules/c.md",
        "memory/sub/.git/d.md",
        "memory//e.md",
        "memory/sub//f.md",
        "memoryx/g.md",
        "team/h.md",
        "team/.venv/i.md",
        "other/j.md",
        "memory/k.txt",
    ]
    paths = [f"{root}/{name}" for name in names] + ["/l.md", "m.md", "memory/n.md"]
    for _ in range(2):  # the second round answers from the memo
        for text in paths:
            parent, name = os.path.split(text)
            lexical = (
                "memory"
                if name.lower().endswith(".md")
                and (
                    (parent == roots.root_s and name == "MEMORY.md")
                    or ws._in_tree(text, roots, folder=False)
                )
                else None
            )
            assert ws._kind(text, roots) == lexical, text
    assert ws._kind(f"{root}/memory/sub/deep/b.md", roots) == "memory"
    assert ws._kind(f"{root}/memory/node_modules/c.md", roots) is None
