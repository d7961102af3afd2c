// SPDX-License-Identifier: GPL-2.0-or-later
// The environment a session ran on, as facts: one table (kFactSpecs) says for every fact its
// key, label, where it is read and how much a difference in it can move a result; capture,
// the store, `sessions show`, the exports, the API, the desktop and compare all read it.
// A fact is a value, or absent with the reason (never a made-up default).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

// What a difference in a fact can do to a result, most first: compare ranks caveats by it.
enum class FactRank {
    Kernel = 1,    // another kernel, or its command line
    Frequency = 2, // the CPU frequency governor, its limits, idle states
    Cpu = 3,       // another CPU model, count, SMT, virtualisation
    Placement = 4, // isolated CPUs, where the engine's threads were allowed and ran
    Load = 5,      // a busy neighbour (load per CPU more than kLoadTolerance apart)
    Port = 6,      // another PMD or kernel driver, firmware, rings, coalescing, offloads
    Sysctl = 7,    // the sysctls that steer polling and softirqs
    Memory = 8,    // memory and hugepages
    Record = 9,    // kept for the record, never a caveat (boot id, memory available)
};
std::string_view rankName(FactRank r); // "kernel", "frequency", ...

// A fact about the machine, about each CPU the engine may use (instance: the CPU number),
// about each engine thread (instance: its name), one per sysctl found (instance: its name), or
// about each real port a run attached (instance: the port's name).
enum class FactScope { Machine, Cpu, Thread, Each, Port };

struct FactSpec {
    std::string_view key;    // "kernel.release"; with an instance: "cpu.governor[0]"
    std::string_view label;  // "kernel release"
    std::string_view source; // where capture reads it
    FactRank rank;
    FactScope scope = FactScope::Machine;
    double tolerance = 0; // > 0: numbers this far apart are alike; 0: text must match
};

std::span<const FactSpec> factSpecs();
// The spec of a stored key ("cpu.governor[1]" -> cpu.governor), or null.
const FactSpec *findFactSpec(std::string_view key);
// "cpu.governor[1]" -> "1"; "" for a machine fact.
std::string factInstance(std::string_view key);
// The key of spec with an instance.
std::string factKey(std::string_view spec, std::string_view instance = {});
// "CPU frequency governor (CPU 1)"
std::string factLabel(std::string_view key);

// Two CPUs' load averages per CPU further apart than this are a caveat (a busy neighbour).
inline constexpr double kLoadTolerance = 0.10;

struct Fact {
    std::string key;
    std::string value;
    std::string absent; // why there is no value; empty when there is one
    bool present() const { return absent.empty(); }
    // The value, or "absent: REASON".
    std::string shown() const;
};

struct Environment {
    std::vector<Fact> facts; // in kFactSpecs order, instances in capture order
    bool recorded() const { return !facts.empty(); }
    const Fact *find(std::string_view key) const;
    void set(Fact f); // replaces a fact with the same key
};

// What a session without an environment shows.
inline constexpr std::string_view kNotRecorded = "not recorded (the session predates it)";

// One difference between A and B that can move a result.
struct EnvironmentDifference {
    std::string key;
    FactRank rank;
    std::string a, b;         // shown() of each side ("absent: ..."), kNotRecorded when missing
    std::string label = {};   // what differs, when it is not a fact (else the fact's label)
    std::string text() const; // "kernel release: A 6.1.0-13-amd64, B 6.5.0-1"
};

// Every difference in compared facts, most influential first (rank, then table order).
// Facts of rank Record are never differences; a side without an environment is one caveat.
std::vector<EnvironmentDifference> environmentDifferences(const Environment &a,
                                                          const Environment &b);

} // namespace ringlab
