#pragma once
// Running the `cascade` command as a user runs it (CASCADE_EXE is its path in the build tree).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cascadekit/io/model_file.hpp"
#include "test_support.hpp"

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

// A scene with two bars at known windows (see runtime tests) and the bar model.
struct Scene {
    std::filesystem::path dir, model, image;
};
inline Scene make_scene(const std::string& name) {
    Scene s;
    s.dir = scratch_dir(name);
    s.model = s.dir / "bar.h5";
    save_model(bar_model(), s.model);
    GrayImage img = constant_image(420, 400, 0);
    draw_bar(img, 32, 24, 1.0);
    draw_bar(img, 160 * 1.44, 80 * 1.44, 1.44);
    s.image = s.dir / "bars.pgm";
    write_pgm(s.image, img);
    return s;
}

}  // namespace cascadekit::test
