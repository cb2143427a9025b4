#pragma once
// Running the `cascade` command as a user runs it (CASCADE_EXE is its path in the build tree).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cascadekit::test {

struct CommandResult {
    int code;  // exit status; 128 + N when killed by signal N
    std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs `cascade ARGS` from a shell (prefix: shell commands before it, e.g. "ulimit -f 64;"),
// stdout and stderr captured in DIR.
inline CommandResult cascade(const std::string& args, const std::filesystem::path& dir, const std::string& prefix = "") {
    const std::string cmd = prefix + " '" + CASCADE_EXE + "' " + args + " >'" + (dir / "stdout.txt").string() + "' 2>'" +
                            (dir / "stderr.txt").string() + "'";
    const int status = std::system(cmd.c_str());  // /bin/sh reports a signal N as exit status 128 + N
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stdout.txt"), slurp(dir / "stderr.txt")};
}

// Shell-quoted path. Built with append: GCC 12 warns falsely (-Wrestrict) on "x" + std::string&&.
inline std::string q(const std::filesystem::path& p) { return std::string("'").append(p.string()).append("'"); }

}  // namespace cascadekit::test
