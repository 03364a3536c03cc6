/* dataloader.c — the C half of torch.utils.data's worker supervision, as upstream's
 * DataLoader.cpp:
 *   _set_worker_signal_handlers()   in a worker: SIGBUS/SIGSEGV/SIGFPE write a one-line reason
 *                                   to stderr and die of the signal; SIGTERM from the parent
 *                                   (the loader shutting down) exits quietly with status 0
 *   _set_worker_pids(id, pids)      the main process remembers each loader's worker pids ...
 *   _remove_worker_pids(id)         ... and forgets them at shutdown
 *   _error_if_any_worker_fails()    RuntimeError naming a worker that exited with an error status
 *                                   or was killed by a signal (waitid with WNOWAIT: the child is
 *                                   left for multiprocessing to reap).
 * Python objects only in the registration functions; the handlers are async-signal-safe. */
#include "python/common.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKER_HANDLER(NAME, SIG, MSG)                                        \
    static void NAME(int sig, siginfo_t *info, void *ctx) {                   \
        static const char msg[] = MSG;                                        \
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);                \
        (void)w; (void)sig; (void)info; (void)ctx;                            \
        struct sigaction sa;                                                  \
        memset(&sa, 0, sizeof sa);                                            \
        sa.sa_handler = SIG_DFL;                                              \
        if (sigemptyset(&sa.sa_mask) != 0 || sigaction(SIG, &sa, NULL) != 0)  \
            _exit(EXIT_FAILURE);                                              \
        raise(SIG);                                                           \
    }

WORKER_HANDLER(on_sigbus, SIGBUS, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n")
WORKER_HANDLER(on_sigsegv, SIGSEGV, "ERROR: Unexpected segmentation fault encountered in worker.\n")
WORKER_HANDLER(on_sigfpe, SIGFPE, "ERROR: Unexpected floating-point exception encountered in worker.\n")

static void on_sigterm(int sig, siginfo_t *info, void *ctx) {
    (void)sig; (void)ctx;
    if (info && info->si_pid == getppid()) _exit(EXIT_SUCCESS);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    if (sigemptyset(&sa.sa_mask) != 0 || sigaction(SIGTERM, &sa, NULL) != 0) _exit(EXIT_FAILURE);
    raise(SIGTERM);
}

static int set_handler(int sig, void (*h)(int, siginfo_t *, void *)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h;
    sa.sa_flags = SA_RESTART | SA_SIGINFO | SA_NOCLDSTOP | SA_NODEFER;
    if (sigemptyset(&sa.sa_mask) != 0 || sigaction(sig, &sa, NULL) != 0) {
        PyErr_Format(PyExc_RuntimeError, "An error occurred while setting handler for %s.", strsignal(sig));
        return -1;
    }
    return 0;
}

static PyObject *set_worker_signal_handlers(PyObject *m, PyObject *u) {
    if (set_handler(SIGBUS, on_sigbus) < 0 || set_handler(SIGSEGV, on_sigsegv) < 0 ||
        set_handler(SIGTERM, on_sigterm) < 0 || set_handler(SIGFPE, on_sigfpe) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *worker_pids; /* {loader id: tuple of pids} */

static PyObject *set_worker_pids(PyObject *m, PyObject *args) {
    if (PyTuple_Size(args) != 2) {
        PyErr_SetString(PyExc_TypeError, "_set_worker_pids expects exactly 2 arguments.");
        return NULL;
    }
    PyObject *key = PyTuple_GetItem(args, 0), *pids = PyTuple_GetItem(args, 1);
    long long k = PyLong_AsLongLong(key);
    if (k == -1 && PyErr_Occurred()) return NULL;
    if (!worker_pids && !(worker_pids = PyDict_New())) return NULL;
    int has = PyDict_Contains(worker_pids, key);
    if (has < 0) return NULL;
    if (has) {
        PyErr_SetString(PyExc_ValueError, "_set_worker_pids should be called only once for each _BaseDataLoaderIter.");
        return NULL;
    }
    if (!PyTuple_Check(pids)) {
        PyObject *tname = PyObject_GetAttrString((PyObject *)Py_TYPE(pids), "__name__");
        if (tname) PyErr_Format(PyExc_TypeError, "_set_worker_pids expects a tuple for child_pids, but got %U", tname);
        Py_XDECREF(tname);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_Size(pids); i++) {
        long v = PyLong_AsLong(PyTuple_GetItem(pids, i));
        if (v == -1 && PyErr_Occurred()) return NULL;
    }
    if (PyDict_SetItem(worker_pids, key, pids) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *remove_worker_pids(PyObject *m, PyObject *key) {
    long long k = PyLong_AsLongLong(key);
    if (k == -1 && PyErr_Occurred()) return NULL;
    int has = worker_pids ? PyDict_Contains(worker_pids, key) : 0;
    if (has < 0) return NULL;
    if (!has) {
        PyErr_Format(PyExc_ValueError, "Cannot find worker information for _BaseDataLoaderIter with id %lld", k);
        return NULL;
    }
    if (PyDict_DelItem(worker_pids, key) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *error_if_any_worker_fails(PyObject *m, PyObject *u) {
    if (!worker_pids) Py_RETURN_NONE;
    PyObject *key, *pids;
    Py_ssize_t it = 0;
    while (PyDict_Next(worker_pids, &it, &key, &pids)) {
        for (Py_ssize_t i = 0; i < PyTuple_Size(pids); i++) {
            pid_t pid = (pid_t)PyLong_AsLong(PyTuple_GetItem(pids, i));
            siginfo_t info;
            memset(&info, 0, sizeof info);
            if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid == 0) continue;
            char msg[512];
            if (info.si_code == CLD_EXITED && info.si_status != EXIT_SUCCESS) {
                snprintf(msg, sizeof msg, "DataLoader worker (pid %d) exited unexpectedly with exit code %d. "
                         "Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace.",
                         (int)pid, info.si_status);
            } else if (info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED) {
                snprintf(msg, sizeof msg, "DataLoader worker (pid %d) is killed by signal: %s. %s", (int)pid,
                         strsignal(info.si_status), info.si_status == SIGBUS ?
                         "It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." : "");
            } else {
                continue;
            }
            /* forget this loader's pids so the error is raised once (the other workers are killed next) */
            PyObject *empty = PyTuple_New(0);
            if (!empty || PyDict_SetItem(worker_pids, key, empty) < 0) { Py_XDECREF(empty); return NULL; }
            Py_DECREF(empty);
            PyErr_SetString(PyExc_RuntimeError, msg);
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

/* _set_thread_name(name) / _get_thread_name(): the OS thread name (Linux keeps 15 bytes), as
 * upstream's c10::setThreadName; the DataLoader names its workers "pt_data_worker". */
static PyObject *set_thread_name(PyObject *m, PyObject *name) {
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "_set_thread_name(): argument 'name' must be str");
        return NULL;
    }
    PyObject *b = PyUnicode_AsUTF8String(name);
    if (!b) return NULL;
    char buf[16];
    snprintf(buf, sizeof buf, "%s", PyBytes_AsString(b));
    Py_DECREF(b);
    pthread_setname_np(pthread_self(), buf);
    Py_RETURN_NONE;
}

static PyObject *get_thread_name(PyObject *m, PyObject *u) {
    char buf[64] = "";
    pthread_getname_np(pthread_self(), buf, sizeof buf);
    return PyUnicode_FromString(buf);
}

static PyMethodDef methods[] = {
    {"_set_thread_name", set_thread_name, METH_O, NULL},
    {"_get_thread_name", get_thread_name, METH_NOARGS, NULL},
    {"_set_worker_signal_handlers", set_worker_signal_handlers, METH_NOARGS, NULL},
    {"_set_worker_pids", set_worker_pids, METH_VARARGS, NULL},
    {"_remove_worker_pids", remove_worker_pids, METH_O, NULL},
    {"_error_if_any_worker_fails", error_if_any_worker_fails, METH_NOARGS, NULL},
    {NULL},
};

int tn_dataloader_init(PyObject *m) { return PyModule_AddFunctions(m, methods); }
