// A program with two suites: the regular one, and one about scale (a million frames, every page
// in every language at every laptop size) that the optimised pass runs and the sanitizer pass
// leaves out, as CTest's label `scale` says (tests/CMakeLists.txt, docs/testing.md).
// `PROGRAM [qtest options]` runs the regular suite, `PROGRAM --scale [qtest options]` the other.
#pragma once

#include <QCoreApplication>
#include <QTest>
#include <cstring>

// SETUP: QTEST_MAIN_SETUP() (the application the program's Qt modules give), or
// ANTHRO_TEST_GUILESS_SETUP for a program that starts other programs as a console one does.
#define ANTHRO_TEST_GUILESS_SETUP QCoreApplication app(argc, argv);
#define ANTHRO_TEST_MAIN_WITH_SCALE(Regular, Scale) ANTHRO_TEST_MAIN_WITH_SCALE_SETUP(Regular, Scale, QTEST_MAIN_SETUP())
#define ANTHRO_TEST_GUILESS_MAIN_WITH_SCALE(Regular, Scale) \
  ANTHRO_TEST_MAIN_WITH_SCALE_SETUP(Regular, Scale, ANTHRO_TEST_GUILESS_SETUP)
#define ANTHRO_TEST_MAIN_WITH_SCALE_SETUP(Regular, Scale, SETUP)        \
  int main(int argc, char* argv[]) {                                     \
    const bool scale = argc > 1 && std::strcmp(argv[1], "--scale") == 0; \
    if (scale) {                                                         \
      argv[1] = argv[0];                                                 \
      ++argv;                                                            \
      --argc;                                                            \
    }                                                                    \
    SETUP                                                                \
    QTEST_SET_MAIN_SOURCE_PATH                                           \
    if (scale) {                                                         \
      Scale tc;                                                          \
      return QTest::qExec(&tc, argc, argv);                              \
    }                                                                    \
    Regular tc;                                                          \
    return QTest::qExec(&tc, argc, argv);                                \
  }
