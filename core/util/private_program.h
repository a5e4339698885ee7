// The workbench's private programs (anthro-capture, anthro-wb-report): where they are, and
// running one in this process's place.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anthro {

// $`path_variable` when set; else `name` next to the running program (a build tree); else
// PREFIX/lib/anthro-workbench/`name`, PREFIX being the parent of the running program's
// directory (/usr for /usr/bin/anthro-wb, where the .deb puts it). The error (`reason`)
// names every place looked at.
Result<std::string> find_private_program(std::string_view name, const char* path_variable, std::string_view what,
                                         std::string_view reason);

// Runs `path` with `args` on this process's stdin, stdout and stderr (no shell) and waits for
// it: its exit code, or 128 + N when signal N ended it, as a shell reports it.
Result<int> run_program(const std::string& path, const std::vector<std::string>& args, std::string_view reason);

}  // namespace anthro
