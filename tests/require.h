// SPDX-License-Identifier: GPL-2.0-or-later
// A test that needs root or a program skips where a developer lacks them, but never under CI
// (CI=true), which runs as root with everything installed: there a missing need is a failure.
#pragma once

#include <QtTest>

#define RINGLAB_REQUIRE(condition, why)                                                            \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            if (qEnvironmentVariableIsSet("CI")) QFAIL("CI must run this test: " why);             \
            QSKIP(why);                                                                            \
        }                                                                                          \
    } while (false)
