/* gemmkit version: the single source of the release number.
 *
 * Semantic Versioning (CONTRIBUTING.md, "Versions"): MAJOR.MINOR.PATCH.
 * Everything that states the version reads it from this line: pyproject.toml
 * (scikit-build-core's regex provider) for the sdist and the native wheel,
 * wasm/build.py for the Pyodide wheel's name and METADATA, and the library
 * itself (gemmkit_version(), gemmkit.__version__, the JavaScript loader's
 * `version`).  tests/native/test_packaging.py checks that they agree.
 * The C ABI's own number, GEMMKIT_ABI_VERSION (gemmkit.h), is separate. */
#ifndef GEMMKIT_VERSION_H
#define GEMMKIT_VERSION_H
#define GEMMKIT_VERSION_STRING "0.1.0"
#endif
