// Files the way users need them: whole or not at all, private when they hold secrets.
#pragma once

#include <string>

#include "util/result.h"

namespace anthro {

// Writes to a temporary file beside `path`, then renames it over `path`.
Result<bool> write_file_atomic(const std::string& path, std::string_view data, unsigned mode = 0644);
Result<std::string> read_file(const std::string& path);
// $XDG_DATA_HOME/anthro-workbench, else ~/.local/share/anthro-workbench; created with mode 0700.
Result<std::string> data_dir();

}  // namespace anthro
