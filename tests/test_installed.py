"""The tests run against the installed package, editable or not: `tacocat`
imports from site-packages (or the editable finder), never from a folder of
the checkout put on sys.path, and its data files are installed with it."""

import importlib.util
import os
import site
import subprocess
import sys
from pathlib import Path

import tacocat
from tacocat.search import gamevalue


def test_only_tacocat_is_installed_no_generic_top_level_names(tmp_path):
    # `solver` and `cli` are folders of the checkout, not installed packages:
    # from outside the checkout only `tacocat` imports.
    code = "import importlib.util as u; print([n for n in ('solver', 'cli', 'tacocat') if u.find_spec(n)])"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "['tacocat']", out
    for site_dir in site.getsitepackages():
        assert not (Path(site_dir) / "solver").exists() and not (Path(site_dir) / "cli").exists(), site_dir


def test_tests_do_not_put_the_source_tree_on_sys_path():
    checkout = Path(__file__).resolve().parents[1]
    for entry in sys.path:
        p = Path(entry or ".").resolve()
        assert p not in (checkout / "solver", checkout / "cli"), entry
    assert importlib.util.find_spec("tacocat").name == tacocat.__name__


def test_package_data_is_found():
    # The measured round rates (R2 spaces) behind game-value utilities: a
    # missing file would silently fall back to symmetric defaults.
    assert gamevalue.RATES_FILE.exists() and gamevalue.VALUES_FILE.exists()
    assert gamevalue._measured_rates() is not None
