"""Build the Cython core: every solver/core/*.pyx becomes an extension module
`tacocat.core.<name>` (the folder `solver/` installs as the package `tacocat`).

Set TACOCAT_DEBUG=1 for the debug build (README "Debug build"): no
optimisation, C `assert`s on (NDEBUG undefined), Cython `assert`s kept, and
bounds checks on every fixed-size C array (GCC/Clang `-fsanitize=bounds`:
an index out of range aborts with `runtime error: index N out of bounds`).
The core indexes only C arrays and pointers, which Cython's own
`boundscheck`/`wraparound` directives do not cover; they are switched on
as well for any Python-level indexing.  The .pyx files carry no per-file
checking directives, so nothing overrides this switch.  A release build
compiles the asserts out (NDEBUG from Python's CFLAGS,
CYTHON_WITHOUT_ASSERTIONS).

Nothing is rebuilt that has not changed (README "Install"): pip builds in a
fresh isolated environment and fresh temporary build folders every time,
so Cython's timestamps (its own includes are always new there) and
setuptools' (the object files are always missing) would regenerate and
recompile the whole core for every `pip install -e '.[extra]'`.  Instead
each step is keyed by content and kept under `build/`:
- `build/cython-stamps/`: a .pyx is cythonized again only when the
  fingerprint of its text, every .pxd of the core, the Cython version and
  the directives differs from the one its .c was made with;
- `build/ext-cache/`: a compiled module is reused when its .c, the
  compiler command and flags and the Python ABI are the same.
`rm -rf build/cython-stamps build/ext-cache` (or any edit) forces a rebuild."""

import glob
import hashlib
import os
import shutil
import sys
import sysconfig

import Cython
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("TACOCAT_DEBUG") == "1"
CORE = os.path.join("solver", "core")
HERE = os.path.dirname(os.path.abspath(__file__))


def cython_include() -> str:
    """A folder where `tacocat/` is this checkout's `solver/`: Cython resolves
    `cimport`s by the installed name (`tacocat.core._search`), which the
    source tree spells `solver/core/_search.pxd`."""
    root = os.path.join(HERE, "build", "cython-include")
    link = os.path.join(root, "tacocat")
    os.makedirs(root, exist_ok=True)
    if not os.path.exists(link):
        os.symlink(os.path.join(HERE, "solver"), link)
    return root


def _digest(*parts: object) -> str:
    """sha256 of file contents (for paths that exist) and plain values."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, str) and os.path.isfile(part):
            with open(part, "rb") as f:
                h.update(f.read())
        else:
            h.update(repr(part).encode())
        h.update(b"\0")
    return h.hexdigest()


DIRECTIVES = {
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": True,
    "initializedcheck": DEBUG,
}
STAMPS = os.path.join(HERE, "build", "cython-stamps")
EXT_CACHE = os.path.join(HERE, "build", "ext-cache")


def cython_fingerprint(pyx: str) -> str:
    """What the .c made from `pyx` depends on: its text, every .pxd of the
    core (a cimport may read any), the Cython version, the directives."""
    pxds = sorted(glob.glob(os.path.join(HERE, CORE, "*.pxd")))
    return _digest(os.path.join(HERE, pyx), *pxds, *map(os.path.basename, pxds), Cython.__version__, DIRECTIVES)


def _stamp_path(pyx: str) -> str:
    return os.path.join(STAMPS, os.path.basename(pyx) + ".sha256")


def up_to_date(pyx: str) -> bool:
    """Whether the .c beside `pyx` was made from what it holds now."""
    c_file = os.path.join(HERE, pyx[:-4] + ".c")
    try:
        with open(_stamp_path(pyx)) as f:
            return os.path.isfile(c_file) and f.read().strip() == cython_fingerprint(pyx)
    except OSError:
        return False


class CachedBuildExt(build_ext):
    """build_ext that reuses a module compiled from the same .c with the
    same compiler, flags and Python (`build/ext-cache/`), instead of
    compiling it again in pip's fresh temporary folder."""

    KEEP = 3  # cached builds kept per module (release, debug, one older)

    def build_extension(self, ext: Extension) -> None:
        key = _digest(
            *[os.path.join(HERE, s) for s in ext.sources],
            self.compiler.compiler_so,
            self.compiler.linker_so,
            ext.extra_compile_args,
            ext.extra_link_args,
            ext.define_macros,
            ext.undef_macros,
            sysconfig.get_config_var("EXT_SUFFIX"),
            sys.version,
        )[:20]
        target = self.get_ext_fullpath(ext.name)
        cached = os.path.join(EXT_CACHE, f"{ext.name}-{key}" + os.path.splitext(target)[1])
        if os.path.isfile(cached):
            os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
            shutil.copy2(cached, target)
            print(f"reusing {ext.name} from {os.path.relpath(cached, HERE)} (its .c and flags are unchanged)")
            return
        super().build_extension(ext)
        os.makedirs(EXT_CACHE, exist_ok=True)
        shutil.copy2(target, cached + ".tmp")
        os.replace(cached + ".tmp", cached)
        mine = sorted(glob.glob(os.path.join(EXT_CACHE, ext.name + "-*")), key=os.path.getmtime, reverse=True)
        for old in mine[self.KEEP :]:
            os.remove(old)


def extension(path: str) -> Extension:
    """The extension module of one .pyx: built from its .c when that is
    up to date (`up_to_date`), else from the .pyx (cythonized below)."""
    source = path[:-4] + ".c" if up_to_date(path) else path
    return Extension(
        "tacocat.core." + os.path.basename(path)[:-4],
        [source],
        extra_compile_args=(
            ["-O0", "-g", "-UNDEBUG", "-fsanitize=bounds", "-fno-sanitize-recover=bounds"] if DEBUG else ["-O3"]
        ),
        extra_link_args=["-fsanitize=bounds"] if DEBUG else [],
        define_macros=[] if DEBUG else [("CYTHON_WITHOUT_ASSERTIONS", None)],
        undef_macros=["NDEBUG"] if DEBUG else [],
    )


PYX = sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, CORE, "*.pyx")))
extensions = [extension(path) for path in PYX]
stale = [path for path in PYX if not up_to_date(path)]
if stale:
    # force: the fingerprint, not a timestamp, said these changed
    extensions = cythonize(
        extensions, language_level=3, include_path=[cython_include()], compiler_directives=DIRECTIVES, force=True
    )
    os.makedirs(STAMPS, exist_ok=True)
    for path in stale:
        with open(_stamp_path(path), "w") as f:
            f.write(cython_fingerprint(path) + "\n")

setup(ext_modules=extensions, cmdclass={"build_ext": CachedBuildExt})
