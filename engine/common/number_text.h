// SPDX-License-Identifier: GPL-2.0-or-later
// A measured figure as text, the same in every table, report and chart: the command line's
// sweep, tune and reproduce reports, the tuner's log and the desktop's sweep views. (The
// desktop's SI-prefixed read-outs, "1.23 M", are ui/value_text's.)
#pragma once

#include <string>

namespace ringlab {

// Three significant digits, and no decimals from 100 on: "0.00123", "42.5", "12345"; "-" for
// what is not a number.
std::string shortNumber(double v);
// For tables of means that sit beside each other: no decimals from 100, one from 10, two
// from 1, three significant digits below: "1234", "12.3", "1.23", "0.0123"; "-" for what is
// not a number.
std::string tableNumber(double v);

} // namespace ringlab
