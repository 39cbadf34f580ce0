// The part of CPython's stable ABI (the Limited API of Python 3.11, which
// every later 3.x keeps) that the Pyodide call module uses, declared for a
// wasm32 build that has no CPython headers: Debian's clang compiles it for
// Pyodide, whose main module exports these symbols to every extension.
// Each declaration is CPython's own (Include/object.h, methodobject.h,
// moduleobject.h, pybuffer.h, ...); tests/native/test_stable_abi_header.py
// compiles this header beside the host's Python.h and checks that every
// struct's size and field offsets agree.
#ifndef GEMMKIT_PYTHON_STABLE_ABI_H
#define GEMMKIT_PYTHON_STABLE_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef ptrdiff_t Py_ssize_t;

typedef struct _object {
  Py_ssize_t ob_refcnt;
  struct _typeobject* ob_type;
} PyObject;

typedef struct {
  void* buf;
  PyObject* obj;
  Py_ssize_t len;
  Py_ssize_t itemsize;
  int readonly;
  int ndim;
  char* format;
  Py_ssize_t* shape;
  Py_ssize_t* strides;
  Py_ssize_t* suboffsets;
  void* internal;
} Py_buffer;

enum {
  PyBUF_WRITABLE = 0x0001,
  PyBUF_FORMAT = 0x0004,
  PyBUF_ND = 0x0008,
  PyBUF_STRIDES = 0x0010 | PyBUF_ND,
};

typedef PyObject* (*PyCFunction)(PyObject*, PyObject*);

typedef struct PyMethodDef {
  const char* ml_name;
  PyCFunction ml_meth;
  int ml_flags;
  const char* ml_doc;
} PyMethodDef;

enum { METH_FASTCALL = 0x0080 };

typedef struct PyModuleDef_Base {
  PyObject ob_base;
  PyObject* (*m_init)(void);
  Py_ssize_t m_index;
  PyObject* m_copy;
} PyModuleDef_Base;

typedef struct PyModuleDef {
  PyModuleDef_Base m_base;
  const char* m_name;
  const char* m_doc;
  Py_ssize_t m_size;
  PyMethodDef* m_methods;
  struct PyModuleDef_Slot* m_slots;
  int (*m_traverse)(PyObject*, int (*)(PyObject*, void*), void*);
  int (*m_clear)(PyObject*);
  void (*m_free)(void*);
} PyModuleDef;

// PyModuleDef_HEAD_INIT: a statically allocated object's header (reference
// count 1, no type: PyModuleDef_Init gives it one).
#define GEMMKIT_PyModuleDef_HEAD_INIT {{1, NULL}, NULL, 0, NULL}

int PyObject_GetBuffer(PyObject* exporter, Py_buffer* view, int flags);
void PyBuffer_Release(Py_buffer* view);
double PyFloat_AsDouble(PyObject* number);
void* PyLong_AsVoidPtr(PyObject* number);
PyObject* PyLong_FromLong(long value);
PyObject* PyErr_Occurred(void);
void PyErr_Clear(void);
void PyErr_SetString(PyObject* type, const char* message);
PyObject* PyModuleDef_Init(PyModuleDef* def);
extern PyObject* PyExc_TypeError;
extern struct _typeobject PyFloat_Type;
extern PyObject _Py_NoneStruct;

#ifdef __cplusplus
}
#endif

#endif  // GEMMKIT_PYTHON_STABLE_ABI_H
