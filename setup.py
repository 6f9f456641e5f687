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
CYTHON_WITHOUT_ASSERTIONS)."""

import glob
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

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


extensions = [
    Extension(
        "tacocat.core." + os.path.basename(path)[:-4],
        [path],
        extra_compile_args=(
            ["-O0", "-g", "-UNDEBUG", "-fsanitize=bounds", "-fno-sanitize-recover=bounds"] if DEBUG else ["-O3"]
        ),
        extra_link_args=["-fsanitize=bounds"] if DEBUG else [],
        define_macros=[] if DEBUG else [("CYTHON_WITHOUT_ASSERTIONS", None)],
        undef_macros=["NDEBUG"] if DEBUG else [],
    )
    for path in sorted(glob.glob(os.path.join(CORE, "*.pyx")))
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        include_path=[cython_include()],
        compiler_directives={
            "boundscheck": DEBUG,
            "wraparound": DEBUG,
            "cdivision": True,
            "initializedcheck": DEBUG,
        },
    )
)
