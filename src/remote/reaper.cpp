// The init of a program player's PID namespace (child_process.h), as a program of its own: a
// static executable with no C library, embedded in the referee (reaper_image.h) and executed
// from a sealed memfd by process 1 once it has started the player as process 2. Process 1 was a
// copy of the referee made without exec, so its memory and /proc/1/cmdline held the referee's
// argv (the master seed, a store URL with its password); after this exec it holds nothing of
// the referee's.
//
// It reaps whatever ends up in the namespace and exits when process 2 does, with its exit code
// (128 + signal for a signal), which takes the rest of the namespace with it.
// Built with -nostdlib -static: x86-64 and AArch64 system calls are made directly.

#include <asm/unistd.h>
#include <linux/prctl.h>

namespace {

constexpr long kPlayer = 2;  // the first process a new PID namespace's init starts
constexpr long kEintr = 4;
constexpr long kEchild = 10;

long system_call(long number, long a = 0, long b = 0, long c = 0, long d = 0) {
#if defined(__x86_64__)
  long result;
  register long r10 asm("r10") = d;
  asm volatile("syscall"
               : "=a"(result)
               : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10)
               : "rcx", "r11", "memory");
  return result;
#elif defined(__aarch64__)
  register long x8 asm("x8") = number;
  register long x0 asm("x0") = a;
  register long x1 asm("x1") = b;
  register long x2 asm("x2") = c;
  register long x3 asm("x3") = d;
  asm volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
#else
#error "the reaper knows the system calls of x86-64 and AArch64 only"
#endif
}

[[noreturn]] void exit_with(long code) {
  for (;;) system_call(__NR_exit_group, code);
}

}  // namespace

extern "C"
    [[noreturn]]
#if defined(__x86_64__)
    __attribute__((force_align_arg_pointer))
#endif
    void
    _start() {
  // Nobody in the namespace may read or write this process's memory through /proc.
  system_call(__NR_prctl, PR_SET_DUMPABLE, 0);
  for (;;) {
    int status = 0;
    const long done = system_call(__NR_wait4, -1, reinterpret_cast<long>(&status), 0, 0);
    if (done == kPlayer) {
      const int signal = status & 0x7f;
      exit_with(signal == 0 ? (status >> 8) & 0xff : 128 + signal);
    }
    if (done == -kEchild) exit_with(127);  // process 2 is gone without having been reaped here
    if (done < 0 && done != -kEintr) exit_with(127);
  }
}
