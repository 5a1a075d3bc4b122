#include "Seccomp.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <string>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace cudaperf {

namespace {

#if !defined(__x86_64__)
#error "the worker's system-call filter is written for x86-64"
#endif

constexpr unsigned kX32Bit = 0x40000000u;

sock_filter statement(unsigned short code, unsigned k) { return BPF_STMT(code, k); }
sock_filter jump(unsigned short code, unsigned k, unsigned char ifTrue, unsigned char ifFalse) {
  return BPF_JUMP(code, k, ifTrue, ifFalse);
}

} // namespace

std::string installCandidateFilter() {
  // Process creation, program execution, other processes' memory, the
  // network, mounts and namespaces, kernel interfaces a candidate never needs.
  const unsigned denied[] = {
      SYS_fork,
      SYS_vfork,
      SYS_execve,
      SYS_execveat,
      SYS_ptrace,
      SYS_process_vm_readv,
      SYS_process_vm_writev,
      SYS_pidfd_open,
      SYS_pidfd_getfd,
      SYS_kcmp,
      SYS_socket,
      SYS_socketpair,
      SYS_connect,
      SYS_bind,
      SYS_listen,
      SYS_accept,
      SYS_accept4,
      SYS_mount,
      SYS_umount2,
      SYS_pivot_root,
      SYS_chroot,
      SYS_setns,
      SYS_unshare,
      SYS_perf_event_open,
      SYS_bpf,
      SYS_userfaultfd,
      SYS_io_uring_setup,
      SYS_io_uring_enter,
      SYS_io_uring_register,
      SYS_keyctl,
      SYS_add_key,
      SYS_request_key,
      SYS_init_module,
      SYS_finit_module,
      SYS_delete_module,
      SYS_kexec_load,
      SYS_kexec_file_load,
      SYS_reboot,
      SYS_swapon,
      SYS_swapoff,
      SYS_acct,
      SYS_process_madvise,
      SYS_name_to_handle_at,
      SYS_open_by_handle_at,
      // Its CPUs are the ones the daemon set apart for its judge (inherited):
      // a candidate that moved onto another judge's or the compiles' would
      // slow their timed calls at no cost to itself.
      SYS_sched_setaffinity,
  };
  std::vector<sock_filter> program = {
      // Only the x86-64 calling convention; x32 numbers are refused.
      statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      statement(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      jump(BPF_JMP | BPF_JGE | BPF_K, kX32Bit, 0, 1),
      statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      // clone3 passes its flags in memory a filter cannot read: ENOSYS.
      jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
      statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      // clone: threads only (CLONE_THREAD in the flags, the first argument).
      jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4),
      statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
      statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
  };
  for (unsigned number : denied) {
    program.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 1));
    program.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  }
  program.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  sock_fprog filter{static_cast<unsigned short>(program.size()), program.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
  // On every thread, not only this one: the CUDA driver's and CUPTI's
  // threads started before the filter, and a candidate that diverts one of
  // them (it can write their code and stacks) would run unfiltered.
  const long failed = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter);
  if (failed > 0)
    return "seccomp filter: thread " + std::to_string(failed) + " could not take it";
  if (failed != 0)
    return std::string("seccomp filter: ") + std::strerror(errno);
  return "";
}

} // namespace cudaperf
