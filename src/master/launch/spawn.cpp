#include "master/launch/spawn.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/job_names.h"
#include "common/job_options.h"
#include "common/launch_guard.h"
#include "common/log.h"
#include "common/unique_fd.h"

namespace bdmpi {
namespace {

constexpr std::string_view kLibbdmpi = "libbdmpi.so";

// Scripts whose interpreter is a script: Linux runs a chain of at most 5
// (exec_binprm's depth), and so many are followed here.
constexpr int kMaxScriptDepth = 5;

std::string BaseName(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string FindInPath(const std::string& name, const std::string& search_path) {
  if (name.find('/') != std::string::npos) return name;
  std::istringstream dirs(search_path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// An ELF file's linkage: PT_INTERP makes it dynamic; DT_NEEDED libbdmpi or
// a defined PMPI_Init (libbdmpi.a) makes it linked.
Linkage ElfLinkage(int fd) {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  if (!ready) return Linkage::kUnknown;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) return Linkage::kUnknown;
  Linkage linkage = Linkage::kUnknown;
  std::size_t headers = 0;
  if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &headers) == 0) {
    bool dynamic = false;
    for (std::size_t i = 0; i < headers; ++i) {
      GElf_Phdr header;
      if (gelf_getphdr(elf, static_cast<int>(i), &header) != nullptr &&
          header.p_type == PT_INTERP)
        dynamic = true;
    }
    bool linked = false;
    for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr && !linked;
         section = elf_nextscn(elf, section)) {
      GElf_Shdr info;
      Elf_Data* data = gelf_getshdr(section, &info) != nullptr && info.sh_entsize > 0
                           ? elf_getdata(section, nullptr)
                           : nullptr;
      if (data == nullptr) continue;
      std::size_t entries = info.sh_size / info.sh_entsize;
      for (std::size_t i = 0; i < entries && !linked; ++i) {
        const char* name = nullptr;
        if (info.sh_type == SHT_DYNAMIC) {
          GElf_Dyn entry;
          if (gelf_getdyn(data, static_cast<int>(i), &entry) != nullptr &&
              entry.d_tag == DT_NEEDED)
            name = elf_strptr(elf, info.sh_link, entry.d_un.d_val);
          linked = name != nullptr && StartsWith(name, kLibbdmpi);
        } else if (info.sh_type == SHT_SYMTAB || info.sh_type == SHT_DYNSYM) {
          GElf_Sym symbol;
          if (gelf_getsym(data, static_cast<int>(i), &symbol) != nullptr &&
              symbol.st_shndx != SHN_UNDEF)
            name = elf_strptr(elf, info.sh_link, symbol.st_name);
          linked = name != nullptr && std::strcmp(name, "PMPI_Init") == 0;
        }
      }
    }
    linkage = linked ? Linkage::kLinked : dynamic ? Linkage::kPreload : Linkage::kStatic;
  }
  elf_end(elf);
  return linkage;
}

// A `#!` line's program: the interpreter, or for `/usr/bin/env [-S] [VAR=x]
// prog`, prog as found in `search_path`; "" when there is none.
std::string ScriptInterpreter(const std::string& line, const std::string& search_path) {
  std::istringstream words(line.substr(2));
  std::string interpreter;
  words >> interpreter;
  if (BaseName(interpreter) != "env") return interpreter;
  for (std::string word; words >> word;) {
    if (word.front() == '-' || word.find('=') != std::string::npos) continue;
    return FindInPath(word, search_path);
  }
  return "";
}

Linkage LinkageAt(const std::string& path, const std::string& search_path,
                  std::string& inspected, int depth) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Linkage::kUnknown;
  char start[256];
  ssize_t got = pread(fd.get(), start, sizeof start, 0);
  if (got >= 2 && start[0] == '#' && start[1] == '!') {
    std::string line(start, static_cast<std::size_t>(got));
    line = line.substr(0, line.find('\n'));
    std::string interpreter = ScriptInterpreter(line, search_path);
    if (interpreter.empty() || depth >= kMaxScriptDepth) return Linkage::kUnknown;
    return LinkageAt(interpreter, search_path, inspected, depth + 1);
  }
  inspected = path;
  return ElfLinkage(fd.get());
}

// libbdmpi beside this bdmprun: <bin>/<libdir> in the install tree, lib/
// in the build tree.
std::string LibbdmpiBesideMaster() {
  std::string self = OwnExecutable();
  std::string bin = self.substr(0, self.rfind('/'));
  for (const char* libdir : {BDMPI_LIBDIR_FROM_BINDIR, "../lib"}) {
    // The directory resolved, the soname's link kept: the ranks show a
    // plain path, and one that names the library's ABI.
    char dir[PATH_MAX];
    if (realpath((bin + "/" + libdir).c_str(), dir) == nullptr) continue;
    std::string candidate = std::string(dir) + "/" + BDMPI_LIBBDMPI_SONAME;
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return "";
}

// Whether one of a LD_PRELOAD list's entries (separated by ':' or spaces,
// as the dynamic loader reads it) is a libbdmpi.
bool PreloadsLibbdmpi(const std::string& list) {
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find_first_of(": ", start);
    if (end == std::string::npos) end = list.size();
    if (StartsWith(BaseName(list.substr(start, end - start)), kLibbdmpi)) return true;
    start = end + 1;
  }
  return false;
}

// Names the master sets for each rank itself, and the launch's marks: an
// inherited value (a nested job's, or one set by hand) must not reach a
// rank, whose getenv would find it first.
bool SetByMaster(const char* entry) {
  for (const char* name :
       {kEnvJobId, kEnvNode, kEnvSlave, kEnvWorldRank, kEnvWorldSize, kEnvNodeSize,
        kEnvNodeCount, kEnvWindowSize, kEnvSpillDir, kEnvSpillDirInode, kEnvMemoryDir,
        kEnvMemoryDirInode, kEnvRequestQueue, kEnvStorageTable, kEnvGoQueue, kEnvWindow,
        kEnvSlaveToken, kEnvDeferPosts, kEnvMayPoll, kEnvMasterPid, kEnvJobSettings, kEnvUniverseSize, kEnvSpawn, kEnvLaunchSecret, kEnvInLaunch, kEnvRanksPreload, kEnvSingletonStart, "LD_PRELOAD"}) {
    if (SetsVariable(entry, name)) return true;
  }
  return IsJobOptionVariable(entry);
}

const char* Value(char** environment, const char* name) {
  for (char** var = environment; *var != nullptr; ++var)
    if (SetsVariable(*var, name)) return *var + std::strlen(name) + 1;
  return nullptr;
}

}  // namespace

Linkage ProgramLinkage(const std::string& path, const std::string& search_path,
                       std::string& inspected) {
  inspected.clear();
  return LinkageAt(path, search_path, inspected, 0);
}

std::vector<std::string> RankBaseEnvironment(char** environment,
                                             const std::string& program_path) {
  std::vector<std::string> env;
  for (char** var = environment; *var != nullptr; ++var) {
    if (std::strncmp(*var, "OMPI_", 5) == 0 || std::strncmp(*var, "PMIX_", 5) == 0) continue;
    if (!SetByMaster(*var)) env.emplace_back(*var);
  }
  // The ranks' own LD_PRELOAD; the master's when it was started without
  // bdmpiexec (then it is the master's own, which got this far).
  const char* given = Value(environment, kEnvRanksPreload);
  if (given == nullptr) given = Value(environment, "LD_PRELOAD");
  std::string preload = given != nullptr ? given : "";

  const char* choice = Value(environment, kEnvPreload);
  const char* search_path = Value(environment, "PATH");
  std::string inspected;
  Linkage linkage = ProgramLinkage(program_path, search_path != nullptr ? search_path : "",
                                   inspected);
  if (linkage == Linkage::kPreload && PreloadsLibbdmpi(preload)) {
    BDMPI_INFO("sched", "LD_PRELOAD for the ranks already has libbdmpi: %s", preload.c_str());
  } else if (linkage == Linkage::kPreload && choice != nullptr &&
             std::strcmp(choice, "off") == 0) {
    BDMPI_INFO("sched", "%s does not link libbdmpi and %s=off: its ranks get libbdmpi "
               "only when they load it, with glibc's malloc", inspected.c_str(), kEnvPreload);
  } else if (linkage == Linkage::kPreload) {
    std::string library = choice != nullptr && *choice != '\0' && std::strcmp(choice, "auto") != 0
                              ? std::string(choice)
                              : LibbdmpiBesideMaster();
    if (library.empty()) {
      BDMPI_WARN("sched", "%s does not link libbdmpi, which is not found beside bdmprun "
                 "(%s/%s): its ranks are not preloaded with it", inspected.c_str(),
                 BDMPI_LIBDIR_FROM_BINDIR, BDMPI_LIBBDMPI_SONAME);
    } else {
      BDMPI_INFO("sched", "%s does not link libbdmpi: preloading %s into its ranks",
                 inspected.c_str(), library.c_str());
      preload += (preload.empty() ? "" : ":") + library;
    }
  } else if (linkage == Linkage::kStatic) {
    BDMPI_INFO("sched", "%s is static: nothing can be preloaded into it", inspected.c_str());
  }
  if (!preload.empty()) env.push_back("LD_PRELOAD=" + preload);
  return env;
}

namespace {

// The out-of-memory score adjustment a rank starts with: the master's
// plus 500, so that where the node runs out of memory the kernel kills a
// rank, whose end the job reports by name and cause, rather than the
// master, whose end takes every rank with it. Raising one's own score
// needs no privilege. The master's own does not change: read once.
const std::string& RankOomScoreAdj() {
  static const std::string value = [] {
    int master = 0;
    if (FILE* file = std::fopen("/proc/self/oom_score_adj", "r")) {
      if (std::fscanf(file, "%d", &master) != 1) master = 0;
      std::fclose(file);
    }
    return std::to_string(std::min(1000, master + 500));
  }();
  return value;
}

}  // namespace

pid_t SpawnSlave(const SpawnSpec& spec) {
  // Everything the child needs is prepared before fork.
  std::vector<char*> argv;
  for (const std::string& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& var : spec.env) envp.push_back(const_cast<char*>(var.c_str()));
  envp.push_back(nullptr);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (spec.cpu >= 0) CPU_SET(spec.cpu, &cpus);
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  const std::string& oom_score_adj = RankOomScoreAdj();
  pid_t parent = getpid();
  // For kernels without close_range's CLOEXEC flag (before 5.11).
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;
  // The child reports a failed exec's errno through this pipe; a
  // successful exec closes it (O_CLOEXEC), so the parent reads nothing.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) ThrowSystemError("pipe2", errno);

  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(report[0]);
    close(report[1]);
    ThrowSystemError("fork", err);
  }
  if (pid == 0) {
    close(report[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the master is already gone
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (spec.cpu >= 0) sched_setaffinity(0, sizeof cpus, &cpus);
    int oom_fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom_fd >= 0) {
      ssize_t ignored = write(oom_fd, oom_score_adj.data(), oom_score_adj.size());
      (void)ignored;
      close(oom_fd);
    }
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
      for (int fd = 3; fd < max_fd; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    for (int fd : spec.keep_fds) fcntl(fd, F_SETFD, 0);
    // {step, errno}: step 0 is chdir, 1 exec.
    int failed[2] = {0, 0};
    if (cwd == nullptr || chdir(cwd) == 0) {
      failed[0] = 1;
      execve(spec.path.c_str(), argv.data(), envp.data());
    }
    failed[1] = errno;
    ssize_t ignored = write(report[1], failed, sizeof failed);
    (void)ignored;
    _exit(127);
  }
  close(report[1]);
  int failed[2] = {0, 0};
  ssize_t got;
  while ((got = read(report[0], failed, sizeof failed)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (got == sizeof failed) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw Error(kErrOther, failed[0] == 0
                               ? "cannot start the slave program " + spec.path +
                                     " in directory " + spec.cwd + " (info wdir): " +
                                     std::strerror(failed[1])
                               : "cannot start the slave program: exec " + spec.path + ": " +
                                     std::strerror(failed[1]));
  }
  return pid;
}

}  // namespace bdmpi
