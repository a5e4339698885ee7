// anthro-wb-report: `anthro-wb report` runs it with its own arguments (cli/report.h). Not for
// people to run; installed with anthro-capture among the package's private programs.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/report.h"

int main(int argc, char** argv) {
  // As anthro-wb's last resort: whatever still throws ends as one line and exit 2.
  try {
    return anthro::cli::render_report(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "anthro-wb report: internal error: " << e.what() << "\n";
    return 2;
  }
}
