"""Build the Cython core: every solver/*.pyx becomes an extension module.

Set TACOCAT_DEBUG=1 to build with bounds checks and assertions on."""

import glob
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("TACOCAT_DEBUG") == "1"

extensions = [
    Extension(
        path[:-4].replace(os.sep, "."),
        [path],
        include_dirs=[numpy.get_include()],
        extra_compile_args=["-O3"] if not DEBUG else ["-O0", "-g"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for path in sorted(glob.glob(os.path.join("solver", "*.pyx")))
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={
            "boundscheck": DEBUG,
            "wraparound": DEBUG,
            "cdivision": True,
            "initializedcheck": DEBUG,
        },
    )
)
