/* gemmkit version: the single source (pyproject.toml reads it too). */
#ifndef GEMMKIT_VERSION_H
#define GEMMKIT_VERSION_H
#define GEMMKIT_VERSION_STRING "0.1.0"
#endif
