// Linked into every executable of the tsan build only (CMakeLists.txt).
//
// Qt 6.4's QProcess::start creates the child with glibc's clone(CLONE_VM | CLONE_VFORK): the child
// shares the parent's memory and thread-local storage until it execs. GCC 12's libtsan intercepts
// clone() and treats every call as a fork, so its after-fork bookkeeping runs in that child on the
// parent's own ThreadSanitizer state: from the first QProcess::start on, the starting thread's
// accesses go unchecked and its reports are dropped (a plain race after a QProcess run was no
// longer reported), and a process that then starts a thread dies ("starting new threads after
// multi-threaded fork is not supported").
//
// This definition of clone() comes before libtsan's in the lookup order, so Qt's calls reach it.
// A clone that shares memory goes straight to glibc (the child only execs, and runs on the
// parent's state with the parent stopped, like any call of the parent); a real fork-like clone
// goes on to libtsan's interceptor as before.
#include <cstdarg>
#include <dlfcn.h>
#include <sched.h>
#include <sys/types.h>

namespace {

using CloneFunction = int (*)(int (*)(void*), void*, int, void*, ...);

CloneFunction glibcClone()
{
    static const auto f = reinterpret_cast<CloneFunction>(
        dlsym(dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD), "clone"));
    return f;
}

CloneFunction tsanClone()
{
    static const auto f = reinterpret_cast<CloneFunction>(dlsym(RTLD_NEXT, "clone"));
    return f;
}

} // namespace

extern "C" int clone(int (*fn)(void*), void* stack, int flags, void* arg, ...)
{
    // The optional arguments, read as glibc's clone and libtsan's interceptor read them.
    va_list ap;
    va_start(ap, arg);
    auto* parentTid = va_arg(ap, pid_t*);
    void* tls = va_arg(ap, void*);
    auto* childTid = va_arg(ap, pid_t*);
    va_end(ap);
    const CloneFunction next = (flags & CLONE_VM) != 0 ? glibcClone() : tsanClone();
    return next(fn, stack, flags, arg, parentTid, tls, childTid);
}
